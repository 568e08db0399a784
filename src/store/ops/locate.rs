//! Turning a `SESSION` argument into a session: a path (to a Loki session
//! directory, its `memory/`, or a directory holding session.json), an id, a
//! unique id prefix, a name, or a unique name prefix.

use crate::store::error::{Result, SessionMatch, StoreError};
use crate::store::format::{SESSION_FILE, name_from_prompt};
use crate::store::ops::conversation::conversation_state;
use crate::store::sources::LokiTree;
use crate::store::sources::derived::derive_record;
use crate::store::sources::layout::{MEMORY_DIR, META_FILE, SessionPaths, WORKSPACE_DIR};
use crate::store::sources::record::SessionRecord;
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
        self.record.writable()?;
        conversation_state(&self.record).map_err(|e| {
            StoreError::Damaged(format!(
                "session {} is damaged, so it is left as it is: {e}",
                self.record.id
            ))
        })?;
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

    /// The agent's working directory (the session dir for bare peteos
    /// sessions; for another agent's, the folder it worked in, else the
    /// folder holding its file).
    pub fn workspace(&self) -> PathBuf {
        if self.record.agent.is_external() {
            return match &self.record.cwd {
                Some(cwd) => PathBuf::from(cwd),
                None => self.record.conversation_dir.clone(),
            };
        }
        if self.is_loki {
            SessionPaths::new(&self.record.path).workspace()
        } else {
            self.record.path.clone()
        }
    }
}

/// Resolves `arg` against `records` (what the store lists) and the file
/// system. `record_of` reads the record of an id of that store afresh.
pub fn locate(
    arg: &str,
    records: &[SessionRecord],
    record_of: impl Fn(&str) -> SessionRecord,
    is_loki: bool,
) -> Result<Target> {
    if looks_like_path(arg) {
        return locate_path(Path::new(arg));
    }
    let id = match_session(arg, records)?.id.clone();
    let record = record_of(&id);
    // A damaged record is still returned when it is a real directory: its
    // conversation may be readable, and writers of meta.json fail on their
    // own with the file named. Links and stray files are never gone into.
    let plain_dir = std::fs::symlink_metadata(&record.path).is_ok_and(|m| m.is_dir());
    if let (Some(error), false) = (&record.error, plain_dir) {
        return Err(StoreError::Damaged(error.clone()));
    }
    Ok(Target { record, is_loki })
}

/// True when a `SESSION` argument is a path rather than an id or a name.
pub fn looks_like_path(arg: &str) -> bool {
    arg.contains('/') || arg == "." || arg == ".."
}

/// The session `arg` names, trying in turn: the exact id; the list's
/// `name · id-start` form; the exact name or the title the list shows
/// (as written, or as `name_from_prompt` makes it, so a first prompt works
/// too); a unique id prefix; a unique prefix of the name or the title
/// shown (ignoring case). Several
/// sessions at the first rule that matches are an error listing them.
/// `records` are in list order, so candidates come most recently used first.
pub fn match_session<'a>(arg: &str, records: &'a [SessionRecord]) -> Result<&'a SessionRecord> {
    if arg.is_empty() {
        return Err(StoreError::Invalid("the session argument is empty".into()));
    }
    if let Some(record) = records.iter().find(|r| r.id == arg) {
        return Ok(record);
    }
    // `name · 20261128-da8c`, as the list tells apart sessions of one name.
    if let Some((name, id_start)) = arg.rsplit_once(" · ") {
        let (name, id_start) = (name.trim(), id_start.trim());
        let found = records
            .iter()
            .filter(|r| r.name == name && !id_start.is_empty() && r.id.starts_with(id_start))
            .collect();
        if let Some(one) = one_of(arg, found)? {
            return Ok(one);
        }
    }
    // Damaged records have no name of their own (it is their id).
    let named = || records.iter().filter(|r| r.is_readable());
    let slug = name_from_prompt(arg);
    let slug_counts = slug != name_from_prompt("");
    let exact_name = named()
        .filter(|r| r.name == arg || r.label() == arg || (slug_counts && r.name == slug))
        .collect();
    if let Some(one) = one_of(arg, exact_name)? {
        return Ok(one);
    }
    let by_id = records.iter().filter(|r| r.id.starts_with(arg)).collect();
    if let Some(one) = one_of(arg, by_id)? {
        return Ok(one);
    }
    let lower = arg.to_lowercase();
    let by_name = named()
        .filter(|r| {
            r.name.to_lowercase().starts_with(&lower)
                || r.label().to_lowercase().starts_with(&lower)
        })
        .collect();
    one_of(arg, by_name)?.ok_or_else(|| {
        StoreError::NotFound(format!("no session has the id, name or prefix {arg:?}"))
    })
}

/// The one match; None for none; an error listing them for several.
fn one_of<'a>(arg: &str, found: Vec<&'a SessionRecord>) -> Result<Option<&'a SessionRecord>> {
    match found.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(one)),
        many => Err(StoreError::Ambiguous {
            arg: arg.to_string(),
            candidates: many
                .iter()
                .map(|r| SessionMatch {
                    id: r.id.to_string(),
                    name: r.name.clone(),
                    last_used_at: r.last_used_at,
                })
                .collect(),
        }),
    }
}

/// A path to a Loki session directory, to its `memory/`, to any directory
/// holding session.json, or to anything inside one of these (`.` in a
/// session's workspace): the nearest session the path is in. It resolves as
/// the listing reads: the session directory, and a Loki session's
/// `memory/`, are never entered through a symbolic link, whatever form the
/// path takes; links above them (the root, a folder holding the store) are
/// followed.
pub fn locate_path(path: &Path) -> Result<Target> {
    let (dir, typed) = resolve_no_follow(path)?;
    if is_session_dir(&dir) {
        return locate_dir(&dir, &typed);
    }
    // Inside a session: the nearest enclosing one, each folder up the path
    // looked at as typed (a link to a session is refused, not entered). A
    // path with `..` is walked up from where it leads.
    let walk_from = if typed
        .components()
        .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        dir.clone()
    } else {
        typed.clone()
    };
    for ancestor in walk_from.ancestors().skip(1) {
        let (Some(name), Some(parent)) = (ancestor.file_name(), ancestor.parent()) else {
            break;
        };
        let Ok(folder) = std::fs::canonicalize(parent) else {
            continue;
        };
        let real = folder.join(name);
        if encloses_as_session(&real) {
            refuse_link(ancestor, &real)?;
            return locate_dir(&real, ancestor);
        }
    }
    Err(StoreError::NotFound(format!(
        "{} is not a session, nor inside one: no meta.json (Loki) or session.json (peteos) \
         there or in a folder above it",
        dir.display()
    )))
}

/// True when `dir` itself holds a session's file.
fn is_session_dir(dir: &Path) -> bool {
    dir.join(META_FILE).is_file() || dir.join(SESSION_FILE).is_file()
}

/// True when a folder above a path is a session that path is inside: it
/// has the shape of one (meta.json beside memory/ or workspace/, or
/// session.json), so a stray meta.json up the tree is not taken.
fn encloses_as_session(dir: &Path) -> bool {
    dir.join(SESSION_FILE).is_file()
        || (dir.join(META_FILE).is_file()
            && (dir.join(MEMORY_DIR).is_dir() || dir.join(WORKSPACE_DIR).is_dir()))
}

/// The session whose directory (or `memory/`) is `dir`, reached by the
/// path `typed` (absolute, as typed).
fn locate_dir(dir: &Path, typed: &Path) -> Result<Target> {
    let dir = dir.to_path_buf();
    if dir.join(META_FILE).is_file() {
        return loki_target(&dir);
    }
    if dir.join(SESSION_FILE).is_file() {
        // memory/ of a Loki session: the Loki session is the unit to lock.
        if dir.file_name().is_some_and(|n| n == MEMORY_DIR)
            && let Some(parent) = dir.parent()
            && parent.join(META_FILE).is_file()
        {
            // The session directory as typed must not be a link either.
            if let Some(session) = typed.parent() {
                refuse_link(session, session)?;
            }
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

/// `path` made absolute with the folder holding its last component
/// resolved (links and all) and the last component itself looked at, not
/// followed: a link there is refused, naming the path as typed. Returns the
/// directory and the path as typed, absolute, without `.` components.
fn resolve_no_follow(path: &Path) -> Result<(PathBuf, PathBuf)> {
    let absolute =
        std::path::absolute(path).map_err(|e| StoreError::io("find session", path, e))?;
    // `a/b/.` and `a/b/` name `a/b`; a `..` at the end names a directory
    // reached from a real one, which canonicalizing finds without a link.
    let typed: PathBuf = absolute
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    let last = typed.file_name().filter(|_| {
        typed
            .components()
            .next_back()
            .is_some_and(|c| matches!(c, std::path::Component::Normal(_)))
    });
    let (Some(name), Some(parent)) = (last, typed.parent()) else {
        let dir =
            std::fs::canonicalize(&typed).map_err(|e| StoreError::io("find session", path, e))?;
        return Ok((dir, typed));
    };
    let folder =
        std::fs::canonicalize(parent).map_err(|e| StoreError::io("find session", path, e))?;
    let dir = folder.join(name);
    refuse_link(&typed, &dir)?;
    Ok((dir, typed))
}

/// Refuses `resolved` (the path `typed` names) when it is a symbolic link.
fn refuse_link(typed: &Path, resolved: &Path) -> Result<()> {
    match std::fs::symlink_metadata(resolved) {
        Ok(m) if m.file_type().is_symlink() => Err(StoreError::Unsafe {
            path: typed.to_path_buf(),
            reason: "it is a symbolic link; session directories are never entered through links"
                .into(),
        }),
        Ok(_) => Ok(()),
        Err(e) => Err(StoreError::io("find session", typed, e)),
    }
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
    let store = LokiTree::open(root, if user.is_empty() { "unknown" } else { &user })?;
    let name = name.to_string_lossy();
    let record = if store.layout().sessions_dir() == parent {
        store.record(&name)
    } else {
        // Not inside a standard tree: read it in place.
        LokiTree::record_at(dir, &user)
    };
    Ok(Target {
        record,
        is_loki: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str, name: &str, used: f64) -> SessionRecord {
        SessionRecord {
            id: id.into(),
            name: name.into(),
            user: "u".into(),
            first_prompt: String::new(),
            created_at: 0.0,
            last_used_at: used,
            path: id.into(),
            conversation_dir: id.into(),
            error: None,
            ..SessionRecord::default()
        }
    }

    fn found(arg: &str, records: &[SessionRecord]) -> Result<String> {
        match_session(arg, records).map(|r| r.id.to_string())
    }

    #[test]
    fn ids_names_and_prefixes() {
        let records = vec![
            record("20261129-aaa", "fix-the-login-bug", 3.0),
            record("20261129-abb", "fix-the-logout-bug", 2.0),
            record("20261128-c", "東京-データ", 1.0),
            record("20261127-d", "20261129", 0.5),
        ];
        assert_eq!(found("20261128", &records).unwrap(), "20261128-c");
        assert_eq!(found("20261129-aaa", &records).unwrap(), "20261129-aaa");
        assert_eq!(
            found("fix-the-login-bug", &records).unwrap(),
            "20261129-aaa"
        );
        assert_eq!(
            found("Fix the LOGIN bug!", &records).unwrap(),
            "20261129-aaa",
            "a prompt"
        );
        assert_eq!(found("fix-the-logo", &records).unwrap(), "20261129-abb");
        assert_eq!(found("FIX-THE-LOGO", &records).unwrap(), "20261129-abb");
        assert_eq!(found("東京", &records).unwrap(), "20261128-c");
        // An exact name wins over the id prefixes it also is.
        assert_eq!(found("20261129", &records).unwrap(), "20261127-d");
        match found("fix-the-log", &records) {
            Err(StoreError::Ambiguous { candidates, .. }) => {
                let ids: Vec<&str> = candidates.iter().map(|c| c.id.as_str()).collect();
                assert_eq!(ids, ["20261129-aaa", "20261129-abb"]);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            found("20261129-a", &records),
            Err(StoreError::Ambiguous { .. })
        ));
        assert!(matches!(
            found("zzz", &records),
            Err(StoreError::NotFound(_))
        ));
        assert!(matches!(found("", &records), Err(StoreError::Invalid(_))));
        assert!(matches!(
            found("!!!", &records),
            Err(StoreError::NotFound(_))
        ));
    }

    #[test]
    fn another_agents_session_is_found_by_the_title_the_list_shows() {
        // A title whose slug is not the name (a name made from a long first
        // prompt, a title set later).
        let mut titled = record("0a8f5c1e", "add-the-first-readme-to-the", 2.0);
        titled.agent = crate::store::Agent::Claude;
        titled.title = "Empty   Repo".into();
        let records = vec![titled, record("20261129-aaa", "fix-the-login-bug", 3.0)];
        assert_eq!(found("Empty Repo", &records).unwrap(), "0a8f5c1e");
        assert_eq!(found("empty r", &records).unwrap(), "0a8f5c1e", "a prefix");
    }
}
