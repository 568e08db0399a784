//! Trash: a session being deleted is first renamed to a hidden name in its
//! folder (atomic: a reader sees it whole or not at all), then removed. An
//! interrupted deletion leaves the trash, which the next writer removes.

use crate::store::error::{Result, StoreError};
use crate::store::fs::atomic::{self, TEMP_PREFIX};
use std::fs;
use std::path::{Path, PathBuf};

/// The start of every trash name in a session folder.
fn prefix() -> String {
    format!("{TEMP_PREFIX}purge-")
}

/// Renames `dir` (a session `id` in `folder`) to a fresh trash name and
/// syncs the folder: from here on no reader sees the session.
pub fn move_to_trash(folder: &Path, dir: &Path, id: &str) -> Result<PathBuf> {
    let trash = folder.join(format!(
        "{}{id}-{}",
        prefix(),
        uuid::Uuid::new_v4().simple()
    ));
    fs::rename(dir, &trash).map_err(|e| StoreError::io("move to trash", dir, e))?;
    atomic::sync_dir(folder)?;
    Ok(trash)
}

/// Deletes trash an interrupted deletion left in `folder` (hidden, never listed).
pub fn remove_stale_trash(folder: &Path) {
    let Ok(entries) = fs::read_dir(folder) else {
        return;
    };
    let prefix = prefix();
    for entry in entries.flatten() {
        let is_trash = entry.file_name().to_string_lossy().starts_with(&prefix);
        if is_trash && entry.file_type().is_ok_and(|t| t.is_dir()) {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}
