//! What the index holds, per session: the stamps its files had when it was
//! read, its name and last use, and its stats. Kept beside the tantivy
//! files in a compact binary form (postcard: it is read on every search,
//! and JSON of 10,000 sessions took 20 ms to parse), written atomically
//! after each commit of the index.

use crate::store::fs::atomic;
use crate::store::index::stamp::FileStamp;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Changes whenever what is indexed, or how, changes: an index of another
/// format is rebuilt.
pub const FORMAT: u32 = 1;
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

impl Manifest {
    /// Reads the manifest in `dir`, checking it is ours for `store`.
    pub fn load(dir: &Path, store: &Path) -> Result<Manifest, Unusable> {
        let path = dir.join(FILE);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Unusable::Missing),
            Err(e) => {
                return Err(Unusable::Invalid(format!(
                    "cannot read {}: {e}",
                    path.display()
                )));
            }
        };
        let manifest: Manifest = postcard::from_bytes(&bytes)
            .map_err(|e| Unusable::Invalid(format!("{} is damaged: {e}", path.display())))?;
        if manifest.format != FORMAT {
            return Err(Unusable::Invalid(format!(
                "{} is of format {}, this version reads {FORMAT}",
                path.display(),
                manifest.format
            )));
        }
        if manifest.store != store {
            return Err(Unusable::Invalid(format!(
                "{} indexes {}, not {}",
                path.display(),
                manifest.store.display(),
                store.display()
            )));
        }
        Ok(manifest)
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
