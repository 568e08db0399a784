//! What each source asks a watcher to look at, and which session a changed
//! path belongs to. A source names folders (never single files) with how
//! deep below them sessions live; the watcher (`fs::watch`) reports paths,
//! and the source turns each into the session it is part of. The other
//! agents' folders are in `watch/agents.rs`.

mod agents;

pub use agents::AgentWatch;

use crate::store::fs::watch::WatchRoot;
use crate::store::sources::agent::Agent;
use crate::store::sources::layout::MEMORY_DIR;
use crate::store::sources::{LokiTree, PeteosFolder};
use std::path::{Component, Path, PathBuf};

/// One session a change touched: its id and the path whose presence says
/// it is still there (its directory, or its file for agents that keep a
/// session in one file).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionRef {
    /// Whose session it is.
    pub agent: Agent,
    /// The session's id, as its record has it.
    pub id: String,
    /// Its directory or file.
    pub path: PathBuf,
}

/// A source that can be watched.
pub trait Watched {
    /// The folders to watch, each with how many levels below it count.
    fn watch_roots(&self) -> Vec<WatchRoot>;
    /// The session `path` (a file or folder that changed, appeared or
    /// went) is part of; None for paths that are no session's (temp
    /// files of writers, the folder itself).
    fn session_of(&self, path: &Path) -> Option<SessionRef>;
    /// Every session a change of `path` touched: the one it is part of, or
    /// (a database holding many) those changed since the last change.
    fn sessions_of(&self, path: &Path) -> Vec<SessionRef> {
        self.session_of(path).into_iter().collect()
    }
}

/// The first plain, visible component of `path` below `dir`.
fn first_below(dir: &Path, path: &Path) -> Option<String> {
    let rest = path.strip_prefix(dir).ok()?;
    match rest.components().next()? {
        Component::Normal(name) => {
            let name = name.to_str()?;
            (!name.starts_with('.')).then(|| name.to_string())
        }
        _ => None,
    }
}

impl Watched for LokiTree {
    /// `<root>/users/<user>/session` and, below it, each session's folder
    /// (meta.json) and its `memory/` (the conversation): two levels, and
    /// not the agent's `workspace/` nor `cache/`. A tree not made yet is
    /// watched from the user's folder (or `users/`), so its first session
    /// is seen.
    fn watch_roots(&self) -> Vec<WatchRoot> {
        let layout = self.layout();
        let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let user = layout.user().to_string();
        let candidates = [
            (layout.sessions_dir(), 2, vec![(2, names(&[MEMORY_DIR]))]),
            (
                layout.user_dir(),
                3,
                vec![(1, names(&["session"])), (3, names(&[MEMORY_DIR]))],
            ),
            (
                layout.root().join("users"),
                4,
                vec![
                    (1, vec![user]),
                    (2, names(&["session"])),
                    (4, names(&[MEMORY_DIR])),
                ],
            ),
        ];
        candidates
            .into_iter()
            .find(|(dir, _, _)| std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()))
            .map(|(dir, depth, only)| vec![WatchRoot { dir, depth, only }])
            .unwrap_or_default()
    }

    fn session_of(&self, path: &Path) -> Option<SessionRef> {
        let dir = self.layout().sessions_dir();
        let id = first_below(&dir, path)?;
        Some(SessionRef {
            agent: LokiTree::AGENT,
            path: dir.join(&id),
            id,
        })
    }
}

impl Watched for PeteosFolder {
    /// The folder and each session's directory in it (one level).
    fn watch_roots(&self) -> Vec<WatchRoot> {
        vec![WatchRoot::new(self.dir().to_path_buf(), 1)]
    }

    fn session_of(&self, path: &Path) -> Option<SessionRef> {
        let id = first_below(self.dir(), path)?;
        Some(SessionRef {
            agent: PeteosFolder::AGENT,
            path: self.dir().join(&id),
            id,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_in_a_session_names_it_and_writers_temp_files_name_none() {
        let tree = LokiTree::open(Path::new("/r"), "ann").unwrap();
        let s = Path::new("/r/users/ann/session");
        let want = Some(SessionRef {
            agent: LokiTree::AGENT,
            id: "20261201-x".into(),
            path: s.join("20261201-x"),
        });
        assert_eq!(tree.session_of(&s.join("20261201-x/memory/c.json")), want);
        assert_eq!(tree.session_of(&s.join("20261201-x/meta.json")), want);
        assert_eq!(tree.session_of(&s.join("20261201-x")), want);
        assert_eq!(tree.session_of(&s.join(".staging-1/meta.json")), None);
        assert_eq!(tree.session_of(s), None);
        assert_eq!(tree.session_of(Path::new("/r/users/bob/session/x")), None);
        let folder = PeteosFolder::open(Path::new("/p"));
        assert_eq!(
            folder.session_of(Path::new("/p/abc/session.json")),
            Some(SessionRef {
                agent: PeteosFolder::AGENT,
                id: "abc".into(),
                path: PathBuf::from("/p/abc")
            })
        );
        assert_eq!(folder.session_of(Path::new("/p/.tmp-1")), None);
    }
}
