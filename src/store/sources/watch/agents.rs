//! The other agents' folders watched: which folders hold their session
//! files, and which session a changed path is, as each agent's provider
//! says. Each agent keeps a session in one file, so a session is named by
//! its file (its `SessionRef::path`):
//!
//! - Claude Code: `<projects>/<project>/<id>.jsonl` (one level below the
//!   root; the `<id>/` folder beside it, subagents and large outputs, is
//!   the same session; `agent-*.jsonl` files are subagents of older
//!   versions, named by their parent inside, and left to a refresh);
//! - Codex: `<home>/sessions/YYYY/MM/DD/rollout-*.jsonl` (four levels) and
//!   `<home>/archived_sessions/*.jsonl`;
//! - Gemini CLI: `<home>/tmp/<project>/chats/session-*.jsonl` (or a legacy
//!   `.json`); its id is inside the file, so the ids of the files seen are
//!   remembered for when one goes;
//! - Copilot CLI: `<home>/session-state/<id>/events.jsonl` (its
//!   `workspace.yaml` beside it is the same session);
//! - Qwen Code: `<home>/projects/<project>/chats/<id>.jsonl`;
//! - the Cursor CLI: `<home>/projects/<project>/agent-transcripts/<id>/
//!   <id>.jsonl`, its subagents' in `<id>/subagents/` (the same session).

use super::{SessionRef, Watched};
use crate::store::format::SessionId;
use crate::store::fs::watch::WatchRoot;
use crate::store::sources::agents::AgentSource;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

/// One agent's folder, watched.
pub struct AgentWatch {
    source: AgentSource,
    /// Gemini CLI's ids by file, read once (at the first change) and kept
    /// as files come, so a deleted file still names its session.
    known: Mutex<Option<HashMap<PathBuf, SessionId>>>,
    /// Where a database holding every session (OpenCode's) was up to at
    /// its last change: what changed after it is what a change touched.
    mark: Mutex<Option<f64>>,
}

impl AgentWatch {
    /// Watches `source`.
    pub fn new(source: AgentSource) -> AgentWatch {
        AgentWatch {
            source,
            known: Mutex::new(None),
            mark: Mutex::new(None),
        }
    }

    /// Runs `f` on Gemini CLI's ids by file, read first if they were not.
    fn remembered<R>(&self, f: impl FnOnce(&mut HashMap<PathBuf, SessionId>) -> R) -> Option<R> {
        let mut known = self.known.lock().ok()?;
        let known = known.get_or_insert_with(|| {
            let ids = self.source.ids().into_iter();
            ids.map(|(id, path)| (path, id)).collect()
        });
        Some(f(known))
    }

    /// The id of the file `path` (there or gone).
    fn id_of(&self, path: &Path) -> SessionId {
        if !self.source.agent().provider().id_is_inside() {
            return self.source.id_of(path);
        }
        let there = std::fs::symlink_metadata(path).is_ok();
        let id = self.remembered(|known| {
            if there {
                let id = self.source.id_of(path);
                known.insert(path.to_path_buf(), id.clone());
                Some(id)
            } else {
                known.get(path).cloned()
            }
        });
        id.flatten().unwrap_or_else(|| self.source.id_of(path))
    }
}

/// The plain names of `path` below `root`, or None when one is hidden
/// (a writer's temp file) or not plain.
fn names_below<'a>(root: &Path, path: &'a Path) -> Option<Vec<&'a str>> {
    path.strip_prefix(root)
        .ok()?
        .components()
        .map(|c| match c {
            Component::Normal(n) => n.to_str().filter(|n| !n.starts_with('.')),
            _ => None,
        })
        .collect()
}

impl Watched for AgentWatch {
    /// The folders holding session files (and, for Gemini CLI, the ids of
    /// the files there now, read once here, so one deleted before it
    /// changed still names its session).
    fn watch_roots(&self) -> Vec<WatchRoot> {
        let provider = self.source.agent().provider();
        if provider.id_is_inside() {
            self.remembered(|_| ());
        }
        let root = self.source.root();
        if let Some((_, mark)) = provider.changed_since(root, None)
            && let Ok(mut kept) = self.mark.lock()
        {
            *kept = Some(mark);
        }
        vec![provider.watch_root(root)]
    }

    /// A database's change: the sessions changed since the last one.
    fn sessions_of(&self, path: &Path) -> Vec<SessionRef> {
        let provider = self.source.agent().provider();
        let root = self.source.root();
        if path.parent() != Some(root) || !provider.is_shared_file(path) {
            return self.session_of(path).into_iter().collect();
        }
        let Ok(mut mark) = self.mark.lock() else {
            return Vec::new();
        };
        let Some((changed, now)) = provider.changed_since(root, *mark) else {
            return Vec::new();
        };
        *mark = Some(now);
        changed
            .into_iter()
            .map(|(id, path)| SessionRef {
                agent: self.source.agent(),
                id: id.into(),
                path,
            })
            .collect()
    }

    fn session_of(&self, path: &Path) -> Option<SessionRef> {
        let root = self.source.root();
        let names = names_below(root, path)?;
        let file = self
            .source
            .agent()
            .provider()
            .session_file_of(root, &names)?;
        Some(SessionRef {
            agent: self.source.agent(),
            id: self.id_of(&file).into(),
            path: file,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sources::agent::Agent;

    fn sref(agent: Agent, id: &str, path: &str) -> Option<SessionRef> {
        Some(SessionRef {
            agent,
            id: id.into(),
            path: PathBuf::from(path),
        })
    }

    #[test]
    fn a_changed_file_of_another_agent_names_its_session_and_others_name_none() {
        let claude = AgentWatch::new(AgentSource::new(Agent::Claude, Path::new("/c")));
        let at = |w: &AgentWatch, p: &str| w.session_of(Path::new(p));
        assert_eq!(
            at(&claude, "/c/proj/abc.jsonl"),
            sref(Agent::Claude, "abc", "/c/proj/abc.jsonl")
        );
        assert_eq!(
            at(&claude, "/c/proj/abc/subagents/agent-1.jsonl"),
            sref(Agent::Claude, "abc", "/c/proj/abc.jsonl")
        );
        assert_eq!(at(&claude, "/c/proj/agent-9.jsonl"), None);
        assert_eq!(at(&claude, "/c/proj/.tmp-abc.jsonl"), None);
        assert_eq!(at(&claude, "/c/proj"), None);
        let codex = AgentWatch::new(AgentSource::new(Agent::Codex, Path::new("/x")));
        let id = "0199a213-81c0-7800-8aa1-bbab2a035a53";
        let live = format!("/x/sessions/2026/12/01/rollout-2026-12-01T10-00-00-{id}.jsonl");
        assert_eq!(at(&codex, &live), sref(Agent::Codex, id, &live));
        let archived = format!("/x/archived_sessions/rollout-2026-12-01T10-00-00-{id}.jsonl");
        assert_eq!(at(&codex, &archived), sref(Agent::Codex, id, &archived));
        assert_eq!(at(&codex, "/x/session_index.jsonl"), None);
        assert_eq!(at(&codex, "/x/sessions/2026/12"), None);
        let tmp = tempfile::tempdir().unwrap();
        let chats = tmp.path().join("tmp/proj/chats");
        std::fs::create_dir_all(&chats).unwrap();
        let file = chats.join("session-2026-12-01T10-00-aaaa.jsonl");
        std::fs::write(&file, "{\"sessionId\":\"gem-1\"}\n").unwrap();
        let gemini = AgentWatch::new(AgentSource::new(Agent::Gemini, tmp.path()));
        let want = Some(SessionRef {
            agent: Agent::Gemini,
            id: "gem-1".into(),
            path: file.clone(),
        });
        assert_eq!(gemini.session_of(&file), want);
        // Gone, the file still names the session it held.
        std::fs::remove_file(&file).unwrap();
        assert_eq!(gemini.session_of(&file), want);
        assert_eq!(
            gemini.session_of(&tmp.path().join("tmp/proj/logs.json")),
            None
        );
    }
}
