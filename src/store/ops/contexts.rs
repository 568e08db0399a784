//! The contexts (forks) of a session, to manage them: list each with how it
//! stands to the active one, make one active (the undo of a trim), delete
//! one that nothing active depends on. Writes hold the session lock and
//! replace files atomically, as a trim does.

use crate::store::error::{Result, StoreError};
use crate::store::format::jsonfile;
use crate::store::format::tokens::Encoding;
use crate::store::format::{Context, Session};
use crate::store::fs::atomic;
use crate::store::fs::lock::{self, SessionLock};
use crate::store::ops::counting::total_tokens;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::UNIX_EPOCH;

/// How a context stands to the session's active context.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    /// The active context.
    Active,
    /// The active context was forked from it, directly or not: deleting it
    /// would cut the active context's history, so it is never deleted.
    Ancestor,
    /// Any other context (another branch, or an orphan).
    Other,
}

impl std::fmt::Display for Relation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Relation::Active => "active",
            Relation::Ancestor => "ancestor",
            Relation::Other => "other",
        })
    }
}

/// Where a context's creation time was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CreatedFrom {
    /// The `creation_timestamp` of its first message (a context that is not a
    /// fork; the timestamp is naive and read as UTC).
    FirstMessage,
    /// The file's modification time: a fork copies its messages with their
    /// old timestamps, so only the file tells when it was written (last).
    File,
}

/// One context of a session, as `contexts` lists it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ContextInfo {
    /// The context id (its file is `<id>.json`).
    pub id: String,
    /// Messages in it (None if it could not be read).
    pub messages: Option<usize>,
    /// Its total tokens, when asked for and readable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    /// When it was made, seconds since the epoch, if known.
    pub created_at: Option<f64>,
    /// Where `created_at` comes from.
    pub created_from: Option<CreatedFrom>,
    /// Active, an ancestor of the active one, or other.
    pub relation: Relation,
    /// The context it was forked from (`origin_context_id`).
    pub origin_context_id: Option<String>,
    /// The contexts forked from it (`children`).
    pub children: Vec<String>,
    /// How many forks lie between it and its root (0 for a root).
    pub depth: usize,
    /// Why it could not be read, if it could not.
    pub error: Option<String>,
}

/// What [`delete`] removed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeletedContext {
    /// The context deleted.
    pub id: String,
    /// Its parent, whose `children` no longer lists it.
    pub parent: Option<String>,
    /// Messages it held.
    pub messages: usize,
}

/// Every context of the conversation in `dir`, with how each stands to the
/// active one, in tree order: each context followed by its forks (depth
/// first), siblings oldest first; `encoding` also counts tokens. Reads only.
pub fn list(dir: &Path, encoding: Option<Encoding>) -> Result<Vec<ContextInfo>> {
    let session = Session::load(dir)?;
    let ancestry = Ancestry::of(&session);
    let mut all: Vec<ContextInfo> = session
        .context_ids()?
        .into_iter()
        .map(|id| info(&session, &ancestry, id, encoding))
        .collect();
    all.sort_by(|a, b| {
        let time = |c: &ContextInfo| c.created_at.unwrap_or(f64::INFINITY);
        time(a).total_cmp(&time(b)).then_with(|| a.id.cmp(&b.id))
    });
    Ok(tree_order(all))
}

/// `contexts` (oldest first) reordered so each is followed by its forks,
/// with `depth` set; a context whose parent is not there is a root.
fn tree_order(contexts: Vec<ContextInfo>) -> Vec<ContextInfo> {
    let ids: BTreeSet<String> = contexts.iter().map(|c| c.id.clone()).collect();
    let parent_of = |c: &ContextInfo| {
        c.origin_context_id
            .clone()
            .filter(|p| ids.contains(p) && *p != c.id)
    };
    let mut slots: Vec<Option<ContextInfo>> = contexts.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(slots.len());
    // Roots first; then anything a cycle kept from being reached.
    let mut starts: Vec<usize> = (0..slots.len())
        .filter(|&i| slots[i].as_ref().is_some_and(|c| parent_of(c).is_none()))
        .collect();
    starts.extend(0..slots.len());
    for start in starts {
        let mut stack = vec![(start, 0)];
        while let Some((i, depth)) = stack.pop() {
            let Some(mut context) = slots[i].take() else {
                continue;
            };
            context.depth = depth;
            // Push the forks newest first, so the oldest comes out first.
            let forks: Vec<usize> = (0..slots.len())
                .rev()
                .filter(|&j| {
                    slots[j]
                        .as_ref()
                        .is_some_and(|c| parent_of(c).as_deref() == Some(context.id.as_str()))
                })
                .collect();
            stack.extend(forks.into_iter().map(|j| (j, depth + 1)));
            out.push(context);
        }
    }
    out
}

fn info(
    session: &Session,
    ancestry: &Ancestry,
    id: String,
    encoding: Option<Encoding>,
) -> ContextInfo {
    let relation = ancestry.relation(&id);
    let loaded = session.load_context(&id);
    let mut info = ContextInfo {
        id,
        messages: None,
        tokens: None,
        created_at: None,
        created_from: None,
        relation,
        origin_context_id: None,
        children: Vec::new(),
        depth: 0,
        error: None,
    };
    let ctx = match loaded {
        Ok(ctx) => ctx,
        Err(e) => {
            info.error = Some(e.to_string());
            return info;
        }
    };
    info.messages = Some(ctx.len());
    info.origin_context_id = ctx.origin_context_id().map(str::to_string);
    info.children = ctx.children().into_iter().map(str::to_string).collect();
    (info.created_at, info.created_from) = created(&ctx);
    if let Some(encoding) = encoding {
        match total_tokens(&ctx, encoding) {
            Ok(total) => info.tokens = Some(total),
            Err(e) => info.error = Some(e.to_string()),
        }
    }
    info
}

/// When a context was made, and where that was read (see [`CreatedFrom`]).
fn created(ctx: &Context) -> (Option<f64>, Option<CreatedFrom>) {
    if ctx.origin_context_id().is_none()
        && let Some(seconds) = ctx
            .message(0)
            .and_then(|m| m.created())
            .and_then(naive_utc_seconds)
    {
        return (Some(seconds), Some(CreatedFrom::FirstMessage));
    }
    let modified = std::fs::symlink_metadata(ctx.path())
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok());
    match modified {
        Some(d) => (Some(d.as_secs_f64()), Some(CreatedFrom::File)),
        None => (None, None),
    }
}

/// Seconds since the epoch of a naive ISO-8601 timestamp, read as UTC.
fn naive_utc_seconds(text: &str) -> Option<f64> {
    let time = humantime::parse_rfc3339_weak(text).ok()?;
    Some(time.duration_since(UNIX_EPOCH).ok()?.as_secs_f64())
}

/// The active context and its ancestors (following `origin_context_id`).
struct Ancestry {
    active: Option<String>,
    ancestors: BTreeSet<String>,
    /// Why the chain could not be followed to its root, if it could not.
    broken: Option<String>,
}

impl Ancestry {
    fn of(session: &Session) -> Ancestry {
        let active = session.active_context_id().map(str::to_string);
        let mut ancestry = Ancestry {
            active: active.clone(),
            ancestors: BTreeSet::new(),
            broken: None,
        };
        let mut next = active;
        while let Some(id) = next.take() {
            match session.load_context(&id) {
                Ok(ctx) => {
                    next = ctx.origin_context_id().map(str::to_string);
                    if let Some(parent) = &next
                        && (Some(parent) == ancestry.active.as_ref()
                            || !ancestry.ancestors.insert(parent.clone()))
                    {
                        break; // a cycle: every context on it is already in
                    }
                }
                // A parent that is gone ends the chain; one that cannot be
                // read hides the rest of it.
                Err(e) if e.is_not_found() => {}
                Err(e) => ancestry.broken = Some(e.to_string()),
            }
        }
        ancestry
    }

    fn relation(&self, id: &str) -> Relation {
        if self.active.as_deref() == Some(id) {
            Relation::Active
        } else if self.ancestors.contains(id) {
            Relation::Ancestor
        } else {
            Relation::Other
        }
    }
}

/// The context id `arg` names in the conversation in `dir`: itself, or the
/// one id it is a prefix of. Reads only.
pub fn find(dir: &Path, arg: &str) -> Result<String> {
    if arg.is_empty() {
        return Err(StoreError::Invalid("the context argument is empty".into()));
    }
    let ids = Session::load(dir)?.context_ids()?;
    if ids.iter().any(|id| id == arg) {
        return Ok(arg.to_string());
    }
    let matches: Vec<&String> = ids.iter().filter(|id| id.starts_with(arg)).collect();
    match matches.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(StoreError::NotFound(format!(
            "no context {arg:?} in {}",
            dir.display()
        ))),
        many => Err(StoreError::Invalid(format!(
            "{arg:?} matches {} contexts ({}); give more of the id",
            many.len(),
            many.iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// Makes context `context_id` active (the undo of a trim), under the lock.
pub fn activate(dir: &Path, lock_dir: &Path, context_id: &str) -> Result<()> {
    let _lock = SessionLock::acquire(lock_dir, lock::DEFAULT_WAIT)?;
    let mut session = Session::load(dir)?;
    // Load it first: never point session.json at a context that cannot be read.
    session.load_context(context_id)?;
    session.set_active_context(context_id);
    session.save()
}

/// Deletes context `context_id`, under the lock: refused for the active
/// context, its ancestors, a context with forks of its own still on disk,
/// and anything that does not parse. Its parent loses it from `children`
/// first (atomically), then its file goes; a crash in between leaves an
/// orphan file, which `contexts` lists as other and a second delete removes.
pub fn delete(dir: &Path, lock_dir: &Path, context_id: &str) -> Result<DeletedContext> {
    let _lock = SessionLock::acquire(lock_dir, lock::DEFAULT_WAIT)?;
    atomic::remove_stale_temps(dir);
    let session = Session::load(dir)?;
    let doomed = deletable(&session, context_id)?;
    let parent_id = doomed.origin_context_id().map(str::to_string);
    if let Some(parent_id) = &parent_id {
        match session.load_context(parent_id) {
            Ok(mut parent) => {
                if drop_child(&mut parent, context_id)? {
                    jsonfile::write_object(parent.path(), parent.raw_dict())?;
                }
            }
            Err(e) if e.is_not_found() => {}
            Err(e) => return Err(e),
        }
    }
    std::fs::remove_file(doomed.path()).map_err(|e| StoreError::io("delete", doomed.path(), e))?;
    atomic::sync_dir(dir)?;
    Ok(DeletedContext {
        id: context_id.to_string(),
        parent: parent_id,
        messages: doomed.len(),
    })
}

/// Whether context `context_id` of the conversation in `dir` may be deleted
/// now (the rules of [`delete`], which checks them again under the lock).
/// Reads only.
pub fn check_delete(dir: &Path, context_id: &str) -> Result<()> {
    deletable(&Session::load(dir)?, context_id).map(|_| ())
}

/// The context, if the rules let it be deleted: it parses, is neither the
/// active context nor one of its ancestors (which must all be known), and
/// has no forks of its own still on disk.
fn deletable(session: &Session, context_id: &str) -> Result<Context> {
    let doomed = session.load_context(context_id)?;
    let ancestry = Ancestry::of(session);
    match ancestry.relation(context_id) {
        Relation::Active => {
            return Err(StoreError::Invalid(format!(
                "{context_id} is the active context; make another one active first"
            )));
        }
        Relation::Ancestor => {
            return Err(StoreError::Invalid(format!(
                "{context_id} is an ancestor of the active context ({}): the active one was forked from it",
                ancestry.active.as_deref().unwrap_or("-")
            )));
        }
        Relation::Other => {}
    }
    if let Some(why) = &ancestry.broken {
        return Err(StoreError::Invalid(format!(
            "cannot tell the ancestors of the active context, so nothing is deleted: {why}"
        )));
    }
    let forks: Vec<&str> = doomed
        .children()
        .into_iter()
        .filter(|child| session.context_path(child).is_ok_and(|p| p.exists()))
        .collect();
    if !forks.is_empty() {
        return Err(StoreError::Invalid(format!(
            "{context_id} has forks of its own ({}); delete those first",
            forks.join(", ")
        )));
    }
    Ok(doomed)
}

/// Removes `child` from the parent's `children`; false when it was not there.
fn drop_child(parent: &mut Context, child: &str) -> Result<bool> {
    let path = parent.path().to_path_buf();
    match parent.raw_dict_mut().get_mut("children") {
        None => Ok(false),
        Some(Value::Array(children)) => {
            let before = children.len();
            children.retain(|c| c.as_str() != Some(child));
            Ok(children.len() != before)
        }
        Some(other) => Err(StoreError::shape(
            &path,
            format!("\"children\" is {}, not a list", jsonfile::kind_of(other)),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A conversation: root r (active unless said) with forks a (of r) and
    /// b (of a), and c (of r).
    fn conversation(active: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, v: Value| {
            std::fs::write(dir.path().join(name), serde_json::to_vec(&v).unwrap()).unwrap()
        };
        let message = json!({"role": "user", "id": "m", "_sequence_number": 3,
            "creation_timestamp": "2026-11-29T08:00:00.5",
            "content": [{"type": "text", "text": "hi"}]});
        write(
            "r.json",
            json!({"messages": [message], "id": "r", "children": ["a", "c"]}),
        );
        for (id, parent, children) in [
            ("a", "r", json!(["b"])),
            ("b", "a", json!([])),
            ("c", "r", json!([])),
        ] {
            write(
                &format!("{id}.json"),
                json!({"messages": [message], "id": id, "children": children,
                       "origin_context_id": parent, "parent_mutation_counter": 0}),
            );
        }
        write(
            "session.json",
            json!({"uuid": "s", "active_context_id": active}),
        );
        dir
    }

    fn relations(dir: &Path) -> Vec<(String, Relation)> {
        let mut out: Vec<_> = list(dir, None)
            .unwrap()
            .into_iter()
            .map(|c| (c.id, c.relation))
            .collect();
        out.sort_by(|x, y| x.0.cmp(&y.0));
        out
    }

    #[test]
    fn relations_follow_the_origin_chain() {
        let dir = conversation("b");
        use Relation::*;
        assert_eq!(
            relations(dir.path()),
            [
                ("a".into(), Ancestor),
                ("b".into(), Active),
                ("c".into(), Other),
                ("r".into(), Ancestor)
            ]
        );
        let root = list(dir.path(), None)
            .unwrap()
            .into_iter()
            .find(|c| c.id == "r")
            .unwrap();
        assert_eq!(root.created_from, Some(CreatedFrom::FirstMessage));
        assert_eq!(root.created_at, Some(1_795_939_200.5));
        assert_eq!(root.children, ["a", "c"]);
    }

    #[test]
    fn contexts_come_in_tree_order() {
        let dir = conversation("b");
        let order: Vec<(String, usize)> = list(dir.path(), None)
            .unwrap()
            .into_iter()
            .map(|c| (c.id, c.depth))
            .collect();
        let order: Vec<(&str, usize)> = order.iter().map(|(id, d)| (id.as_str(), *d)).collect();
        // a and c were written at about the same time: either may come first.
        assert!(
            order == [("r", 0), ("a", 1), ("b", 2), ("c", 1)]
                || order == [("r", 0), ("c", 1), ("a", 1), ("b", 2)],
            "{order:?}"
        );
    }

    #[test]
    fn delete_refuses_the_active_its_ancestors_and_parents_of_forks() {
        let dir = conversation("b");
        let d = dir.path();
        for id in ["b", "a", "r"] {
            let err = delete(d, d, id).unwrap_err().to_string();
            assert!(err.contains(id), "{err}");
        }
        assert!(delete(d, d, "missing").unwrap_err().is_not_found());
        let deleted = delete(d, d, "c").unwrap();
        assert_eq!(deleted.parent.as_deref(), Some("r"));
        assert!(!d.join("c.json").exists());
        let root = Context::load(&d.join("r.json")).unwrap();
        assert_eq!(root.children(), ["a"], "the parent forgot it");
        // Activate the root: b is now other, and a has a fork (b) of its own.
        activate(d, d, "r").unwrap();
        assert!(delete(d, d, "a").unwrap_err().to_string().contains("forks"));
        delete(d, d, "b").unwrap();
        delete(d, d, "a").unwrap();
        assert_eq!(relations(d), [("r".into(), Relation::Active)]);
        assert!(
            Context::load(&d.join("r.json"))
                .unwrap()
                .children()
                .is_empty()
        );
    }

    #[test]
    fn an_unreadable_context_refuses_the_delete_before_anything_goes() {
        let dir = conversation("b");
        let d = dir.path();
        std::fs::write(d.join("r.json"), b"{\"id\": ").unwrap();
        assert!(delete(d, d, "c").is_err());
        assert!(d.join("c.json").exists(), "nothing deleted");
    }

    #[test]
    fn context_prefixes() {
        let dir = conversation("r");
        assert_eq!(find(dir.path(), "a").unwrap(), "a");
        assert!(find(dir.path(), "x").unwrap_err().is_not_found());
        assert!(find(dir.path(), "").is_err());
    }
}
