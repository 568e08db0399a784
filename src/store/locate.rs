//! Turning a `SESSION` argument into a session: an id, a unique id prefix,
//! or a path to a Loki session directory or to a directory holding session.json.

use crate::store::derived::derive_record;
use crate::store::error::{Result, StoreError};
use crate::store::layout::{MEMORY_DIR, META_FILE, SessionPaths};
use crate::store::loki::LokiStore;
use crate::store::peteos::SESSION_FILE;
use crate::store::record::{SessionRecord, conversation_state};
use std::path::{Path, PathBuf};

/// A session found from an argument, with where to read and where to lock.
#[derive(Clone, Debug)]
pub struct Target {
    /// What the list would show for it.
    pub record: SessionRecord,
    /// True for a Loki session (it has meta.json, workspace, memory).
    pub is_loki: bool,
}

impl Target {
    /// Refuses to write to a damaged session, one whose meta.json or
    /// conversation cannot be read: what could not be read is left exactly
    /// as it is (reading it is still allowed). Every writer asks this.
    pub fn writable(&self) -> Result<()> {
        let damaged = |error: &dyn std::fmt::Display| {
            StoreError::Invalid(format!(
                "session {} is damaged, so it is left as it is: {error}",
                self.record.id
            ))
        };
        if let Some(error) = &self.record.error {
            return Err(damaged(error));
        }
        conversation_state(&self.record).map_err(|e| damaged(&e))?;
        Ok(())
    }

    /// The peteos conversation directory.
    pub fn conversation_dir(&self) -> &Path {
        &self.record.conversation_dir
    }

    /// The directory whose lock guards every file of the session.
    pub fn lock_dir(&self) -> &Path {
        &self.record.path
    }

    /// The agent's working directory (the session dir for bare peteos sessions).
    pub fn workspace(&self) -> PathBuf {
        if self.is_loki {
            SessionPaths::new(&self.record.path).workspace()
        } else {
            self.record.path.clone()
        }
    }
}

/// Resolves `arg` against `ids` (the ids a store lists) and the file system.
/// `record_of` reads the record of an id of that store.
pub fn locate(
    arg: &str,
    ids: &[String],
    record_of: impl Fn(&str) -> SessionRecord,
    is_loki: bool,
) -> Result<Target> {
    if looks_like_path(arg) {
        return locate_path(Path::new(arg));
    }
    let id = match_id(arg, ids)?;
    let record = record_of(&id);
    // A damaged record is still returned when it is a real directory: its
    // conversation may be readable, and writers of meta.json fail on their
    // own with the file named. Links and stray files are never gone into.
    let plain_dir = std::fs::symlink_metadata(&record.path).is_ok_and(|m| m.is_dir());
    if let (Some(error), false) = (&record.error, plain_dir) {
        return Err(StoreError::Invalid(error.clone()));
    }
    Ok(Target { record, is_loki })
}

/// Resolves `arg` in a Loki store.
pub fn locate_in_loki(store: &LokiStore, arg: &str) -> Result<Target> {
    let ids: Vec<String> = if looks_like_path(arg) {
        Vec::new()
    } else {
        store.list()?.into_iter().map(|r| r.id).collect()
    };
    locate(arg, &ids, |id| store.record(id), true)
}

fn looks_like_path(arg: &str) -> bool {
    arg.contains('/') || arg == "." || arg == ".."
}

/// The id `arg` names: itself, or the one id it is a prefix of.
pub fn match_id(arg: &str, ids: &[String]) -> Result<String> {
    if arg.is_empty() {
        return Err(StoreError::Invalid("the session argument is empty".into()));
    }
    if ids.iter().any(|id| id == arg) {
        return Ok(arg.to_string());
    }
    let matches: Vec<&String> = ids.iter().filter(|id| id.starts_with(arg)).collect();
    match matches.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(StoreError::NotFound(format!("no session matches {arg:?}"))),
        many => {
            let shown: Vec<&str> = many.iter().take(5).map(|s| s.as_str()).collect();
            Err(StoreError::Invalid(format!(
                "{arg:?} matches {} sessions ({}{}); give more of the id",
                many.len(),
                shown.join(", "),
                if many.len() > 5 { ", ..." } else { "" }
            )))
        }
    }
}

/// A path to a Loki session directory, to its `memory/`, or to any directory
/// holding session.json.
pub fn locate_path(path: &Path) -> Result<Target> {
    let dir = std::fs::canonicalize(path).map_err(|e| StoreError::io("find session", path, e))?;
    if dir.join(META_FILE).is_file() {
        return loki_target(&dir);
    }
    if dir.join(SESSION_FILE).is_file() {
        // memory/ of a Loki session: the Loki session is the unit to lock.
        if dir.file_name().is_some_and(|n| n == MEMORY_DIR)
            && let Some(parent) = dir.parent()
            && parent.join(META_FILE).is_file()
        {
            return loki_target(parent);
        }
        return Ok(Target {
            record: derive_record(&dir),
            is_loki: false,
        });
    }
    Err(StoreError::NotFound(format!(
        "{} is neither a Loki session (no meta.json) nor a peteos session (no session.json)",
        dir.display()
    )))
}

fn loki_target(dir: &Path) -> Result<Target> {
    let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
        return Err(StoreError::Invalid(format!(
            "{} is not a session directory",
            dir.display()
        )));
    };
    // A session folder is <root>/users/<user>/session; reuse the store's reader.
    let user = parent
        .parent()
        .and_then(Path::file_name)
        .map(|u| u.to_string_lossy().into_owned())
        .unwrap_or_default();
    let root = parent
        .parent()
        .and_then(Path::parent)
        .and_then(Path::parent)
        .unwrap_or(parent);
    let store = LokiStore::open(root, if user.is_empty() { "unknown" } else { &user })?;
    let name = name.to_string_lossy();
    let record = if store.layout().sessions_dir() == parent {
        store.record(&name)
    } else {
        // Not inside a standard tree: read it in place.
        LokiStore::record_at(dir, &user)
    };
    Ok(Target {
        record,
        is_loki: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_prefixes() {
        let ids = vec![
            "20261129-aaa".to_string(),
            "20261129-abb".to_string(),
            "20261128-c".to_string(),
        ];
        assert_eq!(match_id("20261128", &ids).unwrap(), "20261128-c");
        assert_eq!(match_id("20261129-aaa", &ids).unwrap(), "20261129-aaa");
        assert!(matches!(
            match_id("20261129-a", &ids),
            Err(StoreError::Invalid(_))
        ));
        assert!(matches!(
            match_id("zzz", &ids),
            Err(StoreError::NotFound(_))
        ));
    }
}
