//! What a listing read from each session file, remembered for the next
//! listing: a file whose stamp (size, inode, modification and change time)
//! is the one remembered is not opened again. Listing 10,000 Claude Code
//! sessions then costs a look at each file's stamp, not a read of its two
//! ends.
//!
//! Only what the file's bytes decide is kept (the title, the folder, the
//! times, the first prompt), and only for a file read as a session; what
//! the disk or the person decide (the size of the folder beside it, the
//! user) is asked again. A file written in the last minute is never
//! remembered: its stamp could stay the same through a write in the same
//! clock tick, and the agent is probably still writing it (the minute a
//! reader waits before it takes a last line without its newline). What is kept names the rules that
//! made it (a hash of the reading code's text): a build that reads
//! differently never takes another build's records.
//!
//! The cache is ours, kept beside the source's search index; it is read
//! as a whole or not at all (a file of another format, another build or
//! another folder is ignored and replaced), and written atomically after a
//! first listing, then only once enough files changed or went (a few
//! changed files cost less read at each listing than the cache written).
//!
//! It also remembers what each folder of sessions held, with the folder's
//! stamp: a name added, removed or renamed in a folder changes its
//! modification and change times, so a folder as it was is not read again
//! (reading 300 folders was a tenth of a listing of 10,000 sessions). A
//! folder modified in the last minute is never remembered: a name added in
//! the same clock tick as the look at it would leave its times as they
//! were.

use crate::store::fs::stamp::FileStamp;
use crate::store::sources::jsonl::QUIET_SECONDS;
use crate::store::sources::record::SessionRecord;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// The cache's file name in the source's index folder.
pub const FILE: &str = "listing.postcard";
/// The largest cache read (a million sessions fit); a bigger file is not ours.
pub const LIMIT: u64 = 512 << 20;
/// Changes whenever the file's layout changes. 2: the folders' entries.
const FORMAT: u32 = 2;
/// Files read again (or gone) before the cache is written anew, beyond one
/// in 64 of those it knows.
const REWRITE_AFTER: usize = 16;

/// What a session file's bytes said, as its record carries it (borrowed
/// from the cache's bytes where it was read from them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Remembered<'a> {
    /// The record's name (a slug of its title).
    #[serde(borrow)]
    pub name: Cow<'a, str>,
    /// The prompt that started it.
    #[serde(borrow)]
    pub first_prompt: Cow<'a, str>,
    /// The title shown.
    #[serde(borrow)]
    pub title: Cow<'a, str>,
    /// The folder the agent worked in.
    #[serde(borrow)]
    pub cwd: Option<Cow<'a, str>>,
    /// Seconds since the epoch.
    pub created_at: f64,
    /// Seconds since the epoch.
    pub last_used_at: f64,
}

impl Remembered<'_> {
    /// What `record` took from its file.
    fn of(record: &SessionRecord) -> Remembered<'static> {
        Remembered {
            name: Cow::Owned(record.name.clone()),
            first_prompt: Cow::Owned(record.first_prompt.clone()),
            title: Cow::Owned(record.title.clone()),
            cwd: record.cwd.clone().map(Cow::Owned),
            created_at: record.created_at,
            last_used_at: record.last_used_at,
        }
    }

    /// `record` (made of what the disk says now) with what its file said.
    pub fn into_record(self, record: SessionRecord) -> SessionRecord {
        SessionRecord {
            name: self.name.into_owned(),
            first_prompt: self.first_prompt.into_owned(),
            title: self.title.into_owned(),
            cwd: self.cwd.map(Cow::into_owned),
            created_at: self.created_at,
            last_used_at: self.last_used_at,
            ..record
        }
    }
}

/// One file's remembered record, with the stamp the file had when read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Kept<'a> {
    #[serde(borrow)]
    path: Cow<'a, str>,
    stamp: FileStamp,
    #[serde(borrow)]
    record: Remembered<'a>,
}

/// One folder's entries as a listing kept them, with the stamp the folder
/// had when it was read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct KeptFolder<'a> {
    #[serde(borrow)]
    path: Cow<'a, str>,
    stamp: FileStamp,
    /// The entries kept, each its lister's flag (`1` or `0`) then its
    /// name, joined by `/` (which no name holds): one string to decode
    /// rather than one per entry.
    #[serde(borrow)]
    entries: Cow<'a, str>,
}

impl KeptFolder<'_> {
    /// Each entry's name and flag.
    fn entries(&self) -> impl Iterator<Item = (&str, bool)> {
        self.entries.split('/').filter_map(|entry| {
            let name = entry.get(1..).filter(|n| !n.is_empty())?;
            Some((name, entry.starts_with('1')))
        })
    }
}

/// The file as written.
#[derive(Serialize, Deserialize)]
struct CacheFile<'a> {
    format: u32,
    /// The hash of the reading code that made the records.
    rules: u64,
    /// The folder listed.
    #[serde(borrow)]
    root: Cow<'a, str>,
    #[serde(borrow)]
    entries: Vec<Kept<'a>>,
    #[serde(borrow)]
    folders: Vec<KeptFolder<'a>>,
}

/// The records remembered for one folder (borrowed from the bytes read),
/// and what this listing saw.
#[derive(Debug, Default)]
pub struct ListingCache<'a> {
    /// The reading code's hash; 0: nothing is remembered or learned.
    rules: u64,
    root: String,
    known: Vec<Kept<'a>>,
    /// Where each known path is in `known` (hashed fast: every file
    /// listed is looked up).
    by_path: rustc_hash::FxHashMap<&'a str, usize>,
    /// Which of `known` this listing found as they were.
    recalled: Vec<AtomicBool>,
    /// What this listing read that was not known so, to be kept.
    learned: Mutex<Vec<Kept<'static>>>,
    /// The folders remembered, where each is by its path, which this
    /// listing found as they were, and those it read to be kept.
    folders: Vec<KeptFolder<'a>>,
    folder_by_path: rustc_hash::FxHashMap<&'a str, usize>,
    folders_recalled: Vec<AtomicBool>,
    folders_learned: Mutex<Vec<KeptFolder<'static>>>,
}

impl<'a> ListingCache<'a> {
    /// A cache that remembers nothing and learns nothing (a source whose
    /// provider does not keep one, an archive).
    pub fn off() -> ListingCache<'static> {
        ListingCache::default()
    }

    /// The cache of `root` read from `bytes` (None: there is none yet),
    /// for records made by code of hash `rules`. Bytes of another format,
    /// build or folder, or that do not decode, are an empty cache; so is
    /// a folder whose name is not UTF-8 (never remembered).
    pub fn from_bytes(bytes: Option<&'a [u8]>, root: &Path, rules: u64) -> ListingCache<'a> {
        let Some(root) = root.to_str() else {
            return ListingCache::default();
        };
        let (known, folders) = bytes
            .and_then(|b| postcard::from_bytes::<CacheFile<'a>>(b).ok())
            .filter(|f| f.format == FORMAT && f.rules == rules && f.root == root)
            .map(|f| (f.entries, f.folders))
            .unwrap_or_default();
        let mut by_path =
            rustc_hash::FxHashMap::with_capacity_and_hasher(known.len(), Default::default());
        for (i, kept) in known.iter().enumerate() {
            if let Cow::Borrowed(path) = kept.path {
                by_path.insert(path, i);
            }
        }
        let mut folder_by_path =
            rustc_hash::FxHashMap::with_capacity_and_hasher(folders.len(), Default::default());
        for (i, folder) in folders.iter().enumerate() {
            if let Cow::Borrowed(path) = folder.path {
                folder_by_path.insert(path, i);
            }
        }
        ListingCache {
            rules,
            root: root.to_string(),
            recalled: known.iter().map(|_| AtomicBool::new(false)).collect(),
            known,
            by_path,
            learned: Mutex::new(Vec::new()),
            folders_recalled: folders.iter().map(|_| AtomicBool::new(false)).collect(),
            folders,
            folder_by_path,
            folders_learned: Mutex::new(Vec::new()),
        }
    }

    /// The entries (names, each with its flag) the folder at `path` held
    /// when it was as `st` (looked at without following a link) describes
    /// it now, if this cache knows it so.
    pub fn recall_folder(
        &self,
        path: &Path,
        st: &rustix::fs::Stat,
    ) -> Option<impl Iterator<Item = (&str, bool)>> {
        if self.rules == 0 || !rustix::fs::FileType::from_raw_mode(st.st_mode).is_dir() {
            return None;
        }
        let at = *self.folder_by_path.get(path.to_str()?)?;
        let folder = self
            .folders
            .get(at)
            .filter(|f| f.stamp == FileStamp::of(st))?;
        self.folders_recalled[at].store(true, Ordering::Relaxed);
        Some(folder.entries())
    }

    /// Keeps the `entries` (names in it, each with its flag) of the folder
    /// at `path`, which `st` described before it was read, when it had not
    /// been modified for a minute at `now` (seconds since the epoch).
    pub fn remember_folder(
        &self,
        path: &Path,
        st: &rustix::fs::Stat,
        entries: &[(&str, bool)],
        now: f64,
    ) {
        let stamp = FileStamp::of(st);
        if self.rules == 0 || now - stamp.mtime_ns as f64 / 1e9 < QUIET_SECONDS {
            return;
        }
        let Some(path) = path.to_str() else { return };
        if entries
            .iter()
            .any(|(name, _)| name.is_empty() || name.contains('/'))
        {
            return;
        }
        let joined: Vec<String> = entries
            .iter()
            .map(|(name, flag)| format!("{}{name}", if *flag { '1' } else { '0' }))
            .collect();
        let folder = KeptFolder {
            path: Cow::Owned(path.to_string()),
            stamp,
            entries: Cow::Owned(joined.join("/")),
        };
        if let Ok(mut learned) = self.folders_learned.lock() {
            learned.push(folder);
        }
    }

    /// True when this cache remembers and learns.
    pub fn is_on(&self) -> bool {
        self.rules != 0
    }

    /// What the file at `path` said when it was as `st` describes it now,
    /// if this cache knows it so and `st` is a regular file's (the caller
    /// looked without following a link).
    pub fn recall(&self, path: &Path, st: &rustix::fs::Stat) -> Option<Remembered<'a>> {
        if self.rules == 0 || !rustix::fs::FileType::from_raw_mode(st.st_mode).is_file() {
            return None;
        }
        let at = *self.by_path.get(path.to_str()?)?;
        let kept = self
            .known
            .get(at)
            .filter(|k| k.stamp == FileStamp::of(st))?;
        self.recalled[at].store(true, Ordering::Relaxed);
        Some(kept.record.clone())
    }

    /// Keeps `record`, read from the file at `path` whose open descriptor
    /// `st` described before it was read, when the file was settled at
    /// `now` (seconds since the epoch).
    pub fn remember(&self, path: &Path, st: &rustix::fs::Stat, record: &SessionRecord, now: f64) {
        let stamp = FileStamp::of(st);
        let modified = stamp.mtime_ns as f64 / 1e9;
        // A damaged record is read again each time: it is rare, and says
        // more than its bytes (what the open found).
        if self.rules == 0 || record.error.is_some() || now - modified < QUIET_SECONDS {
            return;
        }
        let Some(path) = path.to_str() else { return };
        let kept = Kept {
            path: Cow::Owned(path.to_string()),
            stamp,
            record: Remembered::of(record),
        };
        if let Ok(mut learned) = self.learned.lock() {
            learned.push(kept);
        }
    }

    /// The cache to write after a whole listing, if it should change: a
    /// first listing's, or one after enough files were read that it did
    /// not know, or went. A few changed files are read again at each
    /// listing rather than the whole cache written each time (a session
    /// just used is one, each time).
    pub fn to_save(&self) -> Option<Vec<u8>> {
        if self.rules == 0 {
            return None;
        }
        let learned = self.learned.lock().ok()?;
        let kept = still_as_they_were(&self.known, &self.recalled);
        let folders_learned = self.folders_learned.lock().ok()?;
        let folders_kept = still_as_they_were(&self.folders, &self.folders_recalled);
        let changed = learned.len()
            + (self.known.len() - kept.len())
            + folders_learned.len()
            + (self.folders.len() - folders_kept.len());
        let worth = if self.known.is_empty() && self.folders.is_empty() {
            1
        } else {
            REWRITE_AFTER + (self.known.len() + self.folders.len()) / 64
        };
        if changed < worth {
            return None;
        }
        let mut entries: Vec<Kept<'_>> = kept.into_iter().cloned().collect();
        entries.extend(learned.iter().cloned());
        let mut folders: Vec<KeptFolder<'_>> = folders_kept.into_iter().cloned().collect();
        folders.extend(folders_learned.iter().cloned());
        let file = CacheFile {
            format: FORMAT,
            rules: self.rules,
            root: Cow::Borrowed(&self.root),
            entries,
            folders,
        };
        postcard::to_stdvec(&file).ok()
    }
}

/// Those of `known` that this listing found as they were.
fn still_as_they_were<'k, T>(known: &'k [T], recalled: &[AtomicBool]) -> Vec<&'k T> {
    known
        .iter()
        .zip(recalled)
        .filter(|(_, r)| r.load(Ordering::Relaxed))
        .map(|(k, _)| k)
        .collect()
}

/// A hash of `texts` (FNV-1a), computed when the program is built: the
/// rules of a reader, from the text of its code.
pub const fn rules_of(texts: &[&[u8]]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut t = 0;
    while t < texts.len() {
        let text = texts[t];
        let mut i = 0;
        while i < text.len() {
            hash ^= text[i] as u64;
            hash = hash.wrapping_mul(0x0100_0000_01b3);
            i += 1;
        }
        t += 1;
    }
    // Never 0, which means "off".
    if hash == 0 { 1 } else { hash }
}

#[cfg(test)]
mod tests;
