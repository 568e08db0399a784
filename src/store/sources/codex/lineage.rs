//! Codex 0.154+ forks by reference. A "paginated" rollout's `session_meta`
//! may name a `history_base {thread_id, end_ordinal_exclusive,
//! end_byte_offset}`: the session's history is its parent's first
//! `end_byte_offset` bytes (decoded, if the parent is compressed), then its
//! own lines. `thread_id` names the parent's *rollout* (the id in its file
//! name: `rollout-<time>-<id>.jsonl`, or after the `_` of a reverted
//! thread's `rollout-<time>-<thread>_<rollout>.jsonl`), found under
//! `sessions/` or `archived_sessions/`, plain or `.jsonl.zst`. A parent may
//! have a base of its own. Learned from openai/codex
//! `codex-rs/protocol/src/protocol.rs` (`HistoryPosition`),
//! `codex-rs/thread-store/src/local/rollout_lineage.rs` and
//! `delete_thread.rs` (a rollout another one's base names is not deleted).

use crate::store::sources::claude::plain_dirs;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Where a rollout's own history starts from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Base {
    /// The parent's rollout id.
    pub rollout_id: String,
    /// How many of the parent's bytes (decoded) are this one's history.
    pub end_byte: u64,
}

/// One ancestor's part of a history: its file, the bytes of it inherited,
/// and its rollout id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inherited {
    /// The ancestor's rollout file.
    pub path: PathBuf,
    /// Its first bytes (decoded) that are history.
    pub end_byte: u64,
    /// Its rollout id.
    pub rollout_id: String,
}

/// The `history_base` of the rollout whose first line is `first_line`.
pub fn base_of(first_line: &[u8]) -> Option<Base> {
    let line: Value = serde_json::from_slice(first_line).ok()?;
    if line.get("type").and_then(Value::as_str) != Some("session_meta") {
        return None;
    }
    let base = line.get("payload")?.get("history_base")?;
    Some(Base {
        rollout_id: base.get("thread_id")?.as_str()?.to_string(),
        end_byte: base.get("end_byte_offset")?.as_u64()?,
    })
}

/// The first line of the rollout `path` (decoded), up to 1 MiB.
pub fn first_line(path: &Path) -> Option<Vec<u8>> {
    let head = super::decoded_head(path, 1 << 20).ok()?;
    let end = memchr::memchr(b'\n', &head).unwrap_or(head.len());
    Some(head[..end].to_vec())
}

/// The rollout id a rollout file's name says.
pub fn rollout_id_of(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let stem = name
        .strip_suffix(".jsonl.zst")
        .or_else(|| name.strip_suffix(".jsonl"))?;
    let tail = stem.get(stem.len().checked_sub(36)?..)?;
    Some(tail.to_string())
}

/// `$CODEX_HOME` of the rollout `path` (above `sessions/` or `archived_sessions/`).
pub fn home_of(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .find(|a| {
            a.file_name()
                .is_some_and(|n| n == "sessions" || n == "archived_sessions")
        })
        .and_then(Path::parent)
        .map(Path::to_path_buf)
}

/// Every rollout file under `home`, by rollout id: the live ones by day,
/// then the archived ones; a plain `.jsonl` before its `.jsonl.zst`.
pub fn rollouts(home: &Path) -> HashMap<String, PathBuf> {
    let mut out: HashMap<String, PathBuf> = HashMap::new();
    let mut folders = Vec::new();
    for year in plain_dirs(&home.join("sessions")) {
        for month in plain_dirs(&year) {
            folders.extend(plain_dirs(&month));
        }
    }
    folders.push(home.join("archived_sessions"));
    for folder in folders {
        let Ok(listing) = std::fs::read_dir(&folder) else {
            continue;
        };
        let mut files: Vec<PathBuf> = listing
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| e.path())
            .collect();
        // `.jsonl` sorts before `.jsonl.zst`: the plain one is taken.
        files.sort();
        for file in files {
            if let Some(id) = rollout_id_of(&file) {
                out.entry(id).or_insert(file);
            }
        }
    }
    out
}

/// What `path` inherits, the oldest ancestor first; and what went wrong
/// on the way (a parent not found, a cycle, a cutoff past the parent's
/// end), said and never followed further.
pub fn inherited(path: &Path) -> (Vec<Inherited>, Option<String>) {
    let mut chain = Vec::new();
    let Some(base) = first_line(path).and_then(|l| base_of(&l)) else {
        return (chain, None);
    };
    let Some(home) = home_of(path) else {
        return (
            chain,
            Some(format!("{}: not under a Codex home", path.display())),
        );
    };
    let files = rollouts(&home);
    let mut seen: HashSet<String> = rollout_id_of(path).into_iter().collect();
    let mut next = Some(base);
    let mut problem = None;
    while let Some(base) = next.take() {
        if !seen.insert(base.rollout_id.clone()) {
            problem = Some(format!(
                "its history names rollout {} twice (a cycle); the history is shown from there",
                base.rollout_id
            ));
            break;
        }
        let Some(file) = files.get(&base.rollout_id) else {
            problem = Some(format!(
                "its history starts in rollout {}, which is not in {} (deleted?); only its own lines are shown",
                base.rollout_id,
                home.display()
            ));
            break;
        };
        if super::decoded_len(file).is_ok_and(|len| len < base.end_byte) {
            problem = Some(format!(
                "its history is the first {} bytes of {}, which is shorter (rewritten?); only what follows is shown",
                base.end_byte,
                file.display()
            ));
            break;
        }
        next = first_line(file).and_then(|l| base_of(&l));
        chain.push(Inherited {
            path: file.clone(),
            end_byte: base.end_byte,
            rollout_id: base.rollout_id,
        });
    }
    chain.reverse();
    (chain, problem)
}

/// Each rollout id under `home` that another rollout's history names,
/// with the files that name it: such a rollout is not deleted, as Codex's
/// own delete refuses it. Reads the first line of every rollout once.
pub fn dependants(home: &Path) -> HashMap<String, Vec<PathBuf>> {
    let files: Vec<PathBuf> = rollouts(home).into_values().collect();
    let bases =
        crate::store::parallel::map_ordered(&files, |f| first_line(f).and_then(|l| base_of(&l)));
    let mut out: HashMap<String, Vec<PathBuf>> = HashMap::new();
    for (file, base) in files.into_iter().zip(bases) {
        if let Some(base) = base
            && rollout_id_of(&file).as_deref() != Some(base.rollout_id.as_str())
        {
            out.entry(base.rollout_id).or_default().push(file);
        }
    }
    for v in out.values_mut() {
        v.sort();
    }
    out
}

/// Why the rollout `path` may not go, if another rollout reads its
/// history from it (`dependants` of its home, read once by the caller).
pub fn kept_for(path: &Path, dependants: &HashMap<String, Vec<PathBuf>>) -> Option<String> {
    let id = rollout_id_of(path)?;
    let names = dependants.get(&id)?;
    let first = names.first()?;
    let more = match names.len() {
        1 => String::new(),
        n => format!(" and {} more", n - 1),
    };
    Some(format!(
        "another Codex session reads its history from it ({}{more}); delete that one first",
        first.display()
    ))
}
