//! What the index holds, per session: the stamps its files had when it was
//! read, its name and last use, and its stats. Kept beside the tantivy
//! files in a compact binary form (postcard: it is read on every search,
//! and JSON of 10,000 sessions took 20 ms to parse), written atomically
//! after each commit of the index.

use crate::store::format::usage::UsageByModel;
use crate::store::fs::atomic;
use crate::store::index::stamp::{FileStamp, Stamp, stat_matches};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Changes whenever what is indexed, or how, changes: an index of another
/// format is rebuilt.
pub const FORMAT: u32 = 2;
/// The manifest's file name in the index directory.
pub const FILE: &str = "sessions.postcard";

/// One indexed session.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// Its name when indexed.
    pub name: String,
    /// Its last use when indexed.
    pub last_used_at: f64,
    /// meta.json's stamp (None for bare peteos sessions).
    pub meta: Option<FileStamp>,
    /// The conversation directory's stamps.
    pub files: Vec<FileStamp>,
    /// Bytes of the session's files.
    pub bytes: u64,
    /// Messages of the active context.
    pub messages: usize,
    /// Tokens of the active context in cl100k_base.
    pub tokens: Option<u64>,
    /// `is_active` in session.json.
    pub is_active: bool,
    /// Messages indexed.
    pub documents: usize,
    /// Why its conversation could not be read, if it could not.
    pub error: Option<String>,
    /// The tokens another agent recorded as spent, by model.
    pub usage: Option<UsageByModel>,
}

/// Every indexed session.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`FORMAT`] when written.
    pub format: u32,
    /// The session folder indexed.
    pub store: PathBuf,
    /// When the index was last brought up to date (seconds since the epoch).
    pub updated_at: f64,
    /// When the index was first built.
    pub built_at: f64,
    /// Sessions by id.
    pub sessions: BTreeMap<String, Entry>,
}

/// Why a manifest was not used.
#[derive(Debug)]
pub enum Unusable {
    /// There is none yet.
    Missing,
    /// It is damaged, of another format, or for another folder.
    Invalid(String),
}

/// The manifest's bytes in `dir`.
pub fn read(dir: &Path) -> Result<Vec<u8>, Unusable> {
    let path = dir.join(FILE);
    match std::fs::read(&path) {
        Ok(bytes) => Ok(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Unusable::Missing),
        Err(e) => Err(Unusable::Invalid(format!(
            "cannot read {}: {e}",
            path.display()
        ))),
    }
}

/// Decodes a manifest (owned, or a [`ManifestView`] borrowing `bytes`)
/// read from `dir`, checking it is ours for `store`.
fn decode<'a, T: Deserialize<'a>>(
    bytes: &'a [u8],
    dir: &Path,
    store: &Path,
    header: impl Fn(&T) -> (u32, &Path),
) -> Result<T, Unusable> {
    let path = dir.join(FILE);
    let manifest: T = postcard::from_bytes(bytes)
        .map_err(|e| Unusable::Invalid(format!("{} is damaged: {e}", path.display())))?;
    let (format, indexed) = header(&manifest);
    if format != FORMAT {
        return Err(Unusable::Invalid(format!(
            "{} is of format {format}, this version reads {FORMAT}",
            path.display(),
        )));
    }
    if indexed != store {
        return Err(Unusable::Invalid(format!(
            "{} indexes {}, not {}",
            path.display(),
            indexed.display(),
            store.display()
        )));
    }
    Ok(manifest)
}

/// The manifest read without copying its strings, for reading only: what
/// [`SearchIndex::current_stats`](crate::store::index::SearchIndex) needs
/// of every session at a fraction of the memory (the owned manifest of
/// 100k sessions took about 90 MB, which put `list` over its target).
/// Its fields are [`Manifest`]'s, in the same order: the same bytes decode
/// (postcard reads by position, so fields read by nobody stay).
#[derive(Debug, Deserialize)]
#[allow(dead_code)]
pub struct ManifestView<'a> {
    pub format: u32,
    #[serde(borrow)]
    pub store: &'a Path,
    pub updated_at: f64,
    pub built_at: f64,
    #[serde(borrow)]
    pub sessions: BTreeMap<&'a str, EntryView<'a>>,
}

/// [`Entry`], borrowed.
#[derive(Debug, Deserialize)]
#[allow(dead_code)]
pub struct EntryView<'a> {
    pub name: &'a str,
    pub last_used_at: f64,
    #[serde(borrow)]
    pub meta: Option<StampView<'a>>,
    #[serde(borrow)]
    pub files: Vec<StampView<'a>>,
    pub bytes: u64,
    pub messages: usize,
    pub tokens: Option<u64>,
    pub is_active: bool,
    pub documents: usize,
    pub error: Option<&'a str>,
    pub usage: Option<UsageByModel>,
}

/// [`FileStamp`], borrowed.
#[derive(Debug, Deserialize)]
pub struct StampView<'a> {
    pub name: &'a str,
    pub size: u64,
    pub mtime_ns: i128,
    pub ino: u64,
}

impl Stamp for StampView<'_> {
    fn name(&self) -> &str {
        self.name
    }

    fn matches(&self, st: &rustix::fs::Stat) -> bool {
        stat_matches(st, self.size, self.ino, self.mtime_ns)
    }
}

impl EntryView<'_> {
    /// The stats it holds.
    pub fn stats(&self) -> crate::store::index::IndexedStats {
        crate::store::index::IndexedStats {
            bytes: self.bytes,
            messages: self.messages,
            tokens: self.tokens,
            is_active: self.is_active,
            error: self.error.map(str::to_string),
            usage: self.usage.clone(),
        }
    }
}

impl<'a> ManifestView<'a> {
    /// Decodes `bytes` (from [`read`] in `dir`), checking it is ours for `store`.
    pub fn decode(bytes: &'a [u8], dir: &Path, store: &Path) -> Result<Self, Unusable> {
        decode(bytes, dir, store, |m: &ManifestView| (m.format, m.store))
    }
}

impl Manifest {
    /// Reads the manifest in `dir`, checking it is ours for `store`.
    pub fn load(dir: &Path, store: &Path) -> Result<Manifest, Unusable> {
        let bytes = read(dir)?;
        decode(&bytes, dir, store, |m: &Manifest| (m.format, &m.store))
    }

    /// Writes it atomically into `dir`.
    pub fn save(&self, dir: &Path) -> crate::store::Result<()> {
        let bytes = postcard::to_stdvec(self).map_err(|e| {
            crate::store::StoreError::Invalid(format!("cannot write the index manifest: {e}"))
        })?;
        atomic::write_atomic(&dir.join(FILE), &bytes)
    }

    /// Messages indexed in all.
    pub fn documents(&self) -> usize {
        self.sessions.values().map(|e| e.documents).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The borrowed view reads what the owned manifest wrote, field for field
    /// (a field added to one and not the other fails here).
    #[test]
    fn the_view_decodes_what_the_manifest_saved() {
        let dir = tempfile::tempdir().unwrap();
        let stamp = |name: &str, size| FileStamp {
            name: name.into(),
            size,
            mtime_ns: -5 + i128::from(size),
            ino: 77,
        };
        let mut manifest = Manifest {
            format: FORMAT,
            store: PathBuf::from("/store/users/u/session"),
            updated_at: 2.5,
            built_at: 1.5,
            ..Manifest::default()
        };
        manifest.sessions.insert(
            "20261129-a".into(),
            Entry {
                name: "fix-it".into(),
                last_used_at: 3.0,
                meta: Some(stamp("meta.json", 10)),
                files: vec![stamp(".", 4096), stamp("session.json", 120)],
                bytes: 999,
                messages: 12,
                tokens: Some(3456),
                is_active: true,
                documents: 11,
                error: Some("broken".into()),
                usage: None,
            },
        );
        manifest.save(dir.path()).unwrap();
        let bytes = read(dir.path()).unwrap();
        let view = ManifestView::decode(&bytes, dir.path(), &manifest.store).unwrap();
        assert_eq!(
            (view.format, view.store),
            (FORMAT, manifest.store.as_path())
        );
        assert_eq!((view.updated_at, view.built_at), (2.5, 1.5));
        let entry = &view.sessions["20261129-a"];
        let owned = &manifest.sessions["20261129-a"];
        assert_eq!((entry.name, entry.last_used_at), ("fix-it", 3.0));
        let names: Vec<&str> = entry.files.iter().map(|f| f.name).collect();
        assert_eq!(names, [".", "session.json"]);
        let file = &entry.files[1];
        assert_eq!((file.size, file.mtime_ns, file.ino), (120, 115, 77));
        assert_eq!(entry.meta.as_ref().map(|m| m.name), Some("meta.json"));
        assert_eq!(entry.documents, 11);
        let stats = entry.stats();
        assert_eq!(
            (stats.bytes, stats.messages, stats.tokens, stats.is_active),
            (owned.bytes, owned.messages, owned.tokens, owned.is_active)
        );
        assert_eq!(stats.error.as_deref(), Some("broken"));
        // Another folder's manifest is refused, as the owned one is.
        assert!(ManifestView::decode(&bytes, dir.path(), Path::new("/other")).is_err());
    }
}
