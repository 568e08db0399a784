//! Where things live: `<root>/users/<user>/session/<id>/{meta.json,workspace,memory,cache}`.

use crate::store::error::{Result, StoreError};
use crate::store::fs::names::check_component;
use std::path::{Path, PathBuf};

/// File name of a Loki session's metadata.
pub const META_FILE: &str = "meta.json";
/// The agent's working directory inside a session.
pub const WORKSPACE_DIR: &str = "workspace";
/// The peteos conversation inside a session.
pub const MEMORY_DIR: &str = "memory";
/// Session-scoped caches inside a session.
pub const CACHE_DIR: &str = "cache";

/// The paths of one user's Loki tree under a root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    root: PathBuf,
    user: String,
}

impl Layout {
    /// The tree of `user` under `root`; the user name must be a plain name.
    pub fn new(root: &Path, user: &str) -> Result<Layout> {
        check_component(user, "user name")
            .map_err(|why| StoreError::Invalid(format!("bad user name {user:?}: {why}")))?;
        Ok(Layout {
            root: root.to_path_buf(),
            user: user.to_string(),
        })
    }

    /// The Loki home the tree is under.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The user whose tree this is.
    pub fn user(&self) -> &str {
        &self.user
    }

    /// `<root>/users/<user>`.
    pub fn user_dir(&self) -> PathBuf {
        self.root.join("users").join(&self.user)
    }

    /// `<root>/users/<user>/session`: the folder holding one directory per session.
    pub fn sessions_dir(&self) -> PathBuf {
        self.user_dir().join("session")
    }

    /// The directory of session `id`, which must be a plain name.
    pub fn session_dir(&self, id: &str) -> Result<PathBuf> {
        check_id(id)?;
        Ok(self.sessions_dir().join(id))
    }
}

/// The paths inside one Loki session directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionPaths {
    /// The session directory itself.
    pub dir: PathBuf,
}

impl SessionPaths {
    /// Paths of the session at `dir`.
    pub fn new(dir: &Path) -> Self {
        SessionPaths {
            dir: dir.to_path_buf(),
        }
    }
    /// `meta.json`.
    pub fn meta(&self) -> PathBuf {
        self.dir.join(META_FILE)
    }
    /// `workspace/`.
    pub fn workspace(&self) -> PathBuf {
        self.dir.join(WORKSPACE_DIR)
    }
    /// `memory/`: the peteos session directory.
    pub fn memory(&self) -> PathBuf {
        self.dir.join(MEMORY_DIR)
    }
    /// `cache/`.
    pub fn cache(&self) -> PathBuf {
        self.dir.join(CACHE_DIR)
    }
}

/// Checks that a session id is one plain path component.
pub fn check_id(id: &str) -> Result<()> {
    check_component(id, "session id")
        .map_err(|why| StoreError::Invalid(format!("bad session id {id:?}: {why}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_with_path_syntax_are_refused() {
        for bad in ["", ".", "..", "../x", "a/b", ".hidden", "a\0b"] {
            assert!(check_id(bad).is_err(), "{bad:?} accepted");
        }
        assert!(check_id("20261129-abc").is_ok());
        let layout = Layout::new(Path::new("/r"), "ann").unwrap();
        assert_eq!(layout.sessions_dir(), Path::new("/r/users/ann/session"));
        assert!(layout.session_dir("../../etc").is_err());
        assert!(Layout::new(Path::new("/r"), "../x").is_err());
    }
}
