//! The manifest and the tantivy index read as one: a manifest is used only
//! with the commit it names. They are two files, written one after the
//! other by the process holding the writer lock (commit, then manifest), so
//! a reader outside that lock may see a new commit and the old manifest for
//! a moment, and asks again; a pair that never matches (a deleted
//! `meta.json`, a manifest or an index copied from elsewhere, a writer
//! killed between the two) describes nothing: the manifest is not used, so
//! every session counts as unknown to the index and is read again or
//! searched directly, never answered from the index with nothing.

use crate::store::error::Result;
use crate::store::index::SearchIndex;
use crate::store::index::engine::{Commit, Engine};
use crate::store::index::manifest::{Manifest, Unusable};
use std::time::Duration;

/// How often a reader asks again for a manifest matching the commit, and
/// how long it waits between two asks: about a second in all, longer than
/// a writer takes between a commit and the manifest after it.
pub const READER_ATTEMPTS: usize = 50;
const PAUSE: Duration = Duration::from_millis(20);

impl SearchIndex {
    /// The manifest of the commit `engine`'s reader now sees (reloaded), or
    /// an empty manifest and why not. `attempts` is 1 for the holder of the
    /// writer lock (nobody else commits), [`READER_ATTEMPTS`] otherwise.
    pub(super) fn consistent_manifest(
        &self,
        engine: &Engine,
        attempts: usize,
    ) -> Result<(Manifest, Option<String>)> {
        let mut why = String::new();
        for attempt in 0..attempts.max(1) {
            if attempt > 0 {
                std::thread::sleep(PAUSE);
            }
            let loaded = self.load_manifest();
            let Some(commit) = engine.reload_and_name()? else {
                why = "a commit landed while it was read".into();
                continue;
            };
            match matches(loaded, &commit) {
                Ok(manifest) => return Ok((manifest, None)),
                Err(Mismatch::New) => return Ok((self.empty_manifest(), None)),
                Err(Mismatch::Final(reason)) => return Ok((self.empty_manifest(), Some(reason))),
                Err(Mismatch::Passing(reason)) => why = reason,
            }
        }
        let dir = self.dir.as_deref().unwrap_or(std::path::Path::new("?"));
        let note = format!(
            "the search index in {} does not match its manifest ({why})",
            dir.display()
        );
        Ok((self.empty_manifest(), Some(note)))
    }
}

/// Why a manifest does not describe a commit.
enum Mismatch {
    /// Neither holds anything yet: a new index.
    New,
    /// Asking again cannot help (the manifest is damaged or another's).
    Final(String),
    /// A writer may be between its commit and its manifest.
    Passing(String),
}

fn matches(
    loaded: std::result::Result<Manifest, Unusable>,
    commit: &Commit,
) -> std::result::Result<Manifest, Mismatch> {
    let manifest = match loaded {
        Ok(manifest) => manifest,
        Err(Unusable::Invalid(why)) => return Err(Mismatch::Final(why)),
        // No manifest, no documents: a new index.
        Err(Unusable::Missing) if commit.documents == 0 => return Err(Mismatch::New),
        Err(Unusable::Missing) => {
            return Err(Mismatch::Passing(format!(
                "the manifest is missing and the index holds {} messages",
                commit.documents
            )));
        }
    };
    let named = commit.payload.as_deref().unwrap_or("");
    if manifest.commit != named {
        return Err(Mismatch::Passing(format!(
            "the index is at commit {named:?}, the manifest describes commit {:?}",
            manifest.commit
        )));
    }
    let documents = manifest.documents() as u64;
    if documents != commit.documents {
        return Err(Mismatch::Final(format!(
            "the index holds {} messages, the manifest {documents}",
            commit.documents
        )));
    }
    Ok(manifest)
}
