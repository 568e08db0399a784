//! A folder of bare peteos sessions (`<uuid>/session.json` + contexts, no
//! meta.json), used in place: records are derived, nothing is converted.

use crate::store::error::{Result, StoreError};
use crate::store::format::SESSION_FILE;
use crate::store::fs::disk;
use crate::store::sources::agent::Agent;
use crate::store::sources::derived::derive_record;
use crate::store::sources::layout::check_id;
use crate::store::sources::record::SessionRecord;
use std::fs;
use std::path::{Path, PathBuf};

/// A peteos sessions folder. Opening does no I/O.
#[derive(Clone, Debug)]
pub struct PeteosFolder {
    dir: PathBuf,
}

impl PeteosFolder {
    /// Whose sessions a folder of peteos sessions holds.
    pub const AGENT: Agent = Agent::Peteos;

    /// The folder `dir` (typically `~/.peteos/sessions`).
    pub fn open(dir: &Path) -> PeteosFolder {
        PeteosFolder {
            dir: dir.to_path_buf(),
        }
    }

    /// True when some child directory of `dir` holds a session.json.
    pub fn looks_like_one(dir: &Path) -> bool {
        let Ok(entries) = fs::read_dir(dir) else {
            return false;
        };
        entries
            .flatten()
            .take(1000)
            .any(|e| e.path().join(SESSION_FILE).is_file())
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Refuses a folder that is not there (or is not a directory).
    pub fn check_folder(&self) -> Result<()> {
        match fs::metadata(&self.dir) {
            Ok(m) if m.is_dir() => Ok(()),
            Ok(_) => Err(StoreError::Missing {
                path: self.dir.clone(),
                message: format!("{} is not a directory", self.dir.display()),
            }),
            Err(e) => Err(StoreError::Missing {
                path: self.dir.clone(),
                message: if e.kind() == std::io::ErrorKind::NotFound {
                    format!(
                        "the peteos sessions folder {} does not exist",
                        self.dir.display()
                    )
                } else {
                    format!(
                        "cannot open the peteos sessions folder {}: {e}",
                        self.dir.display()
                    )
                },
            }),
        }
    }

    /// Refuses a folder another user owns (what the listing checks first).
    pub fn check_owned(&self) -> Result<()> {
        disk::check_owned_by_us(&self.dir)
    }

    /// Reads every session, in batches as they are read; `on_batch` returns
    /// false to stop.
    pub fn scan(&self, mut on_batch: impl FnMut(Vec<SessionRecord>) -> bool) -> Result<()> {
        self.check_owned()?;
        let entries = fs::read_dir(&self.dir)
            .map_err(|e| StoreError::io("list sessions in", &self.dir, e))?;
        let mut dirs: Vec<PathBuf> = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            // Plain files (and our hidden temp entries) are not sessions.
            if !name.starts_with('.')
                && entry
                    .file_type()
                    .is_ok_and(|t| t.is_dir() || t.is_symlink())
            {
                dirs.push(entry.path());
            }
        }
        for chunk in dirs.chunks(256) {
            if !on_batch(chunk.iter().map(|d| self.record_at(d)).collect()) {
                break;
            }
        }
        Ok(())
    }

    /// The record of session `id`.
    pub fn record(&self, id: &str) -> SessionRecord {
        self.record_at(&self.dir.join(id))
    }

    fn record_at(&self, dir: &Path) -> SessionRecord {
        let id = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let user = disk::os_user_name().unwrap_or_default();
        let damaged = |why: String| {
            SessionRecord::damaged(&id, dir.to_path_buf(), dir.to_path_buf(), &user, why)
        };
        if let Err(e) = check_id(&id) {
            return damaged(e.to_string());
        }
        match fs::symlink_metadata(dir) {
            Ok(m) if m.file_type().is_symlink() => damaged(format!(
                "{} is a symbolic link; not followed",
                dir.display()
            )),
            Ok(m) if m.is_dir() => derive_record(dir),
            Ok(_) => damaged(format!("{} is not a session directory", dir.display())),
            Err(e) => damaged(StoreError::io("inspect", dir, e).to_string()),
        }
    }
}
