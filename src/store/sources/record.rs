//! One session as a listing shows it: the facts read from meta.json (or
//! derived from a bare peteos session), and the order every list uses.

use crate::store::error::{Result, StoreError};
use crate::store::format::SessionId;
use crate::store::fs::stamp::FileStamp;
use crate::store::sources::agent::Agent;
use serde::Serialize;
use std::path::PathBuf;

/// One session as listed: read from meta.json (or derived for peteos
/// folders, or read from the ends of another agent's session file).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SessionRecord {
    /// Whose session it is.
    pub agent: Agent,
    /// The session's id: the directory name (Loki, peteos), or the agent's
    /// own id (Claude Code's file name, Codex's and Gemini's session id).
    pub id: SessionId,
    /// Slug of the first prompt.
    pub name: String,
    /// The user whose tree holds it.
    pub user: String,
    /// The prompt that started it.
    pub first_prompt: String,
    /// The title a person reads: the agent's own title where it keeps one
    /// (a Loki name, a Claude Code custom or AI title), else the first prompt.
    pub title: String,
    /// The folder the agent worked in, where the session says.
    pub cwd: Option<String>,
    /// Seconds since the epoch.
    pub created_at: f64,
    /// Seconds since the epoch.
    pub last_used_at: f64,
    /// The session directory (another agent's: its session file).
    pub path: PathBuf,
    /// The peteos conversation directory (`memory/` for Loki sessions;
    /// the folder holding another agent's session file).
    #[serde(skip)]
    pub conversation_dir: PathBuf,
    /// Why the session could not be read, if it could not.
    pub error: Option<String>,
    /// The session's size, when the listing measured it on the way (another
    /// agent's files: it read them anyway); None: measured when asked.
    #[serde(skip)]
    pub bytes: Option<u64>,
    /// The stamp its file had when the listing looked at it on the way
    /// (Claude Code's listing looks at each file): its modification time is
    /// what an agent's cleanup that ages sessions by it compares, and a
    /// check of the same file a moment later (the search index's) takes it,
    /// without asking the disk again. Boxed: 100k Loki sessions have none.
    #[serde(skip)]
    pub stamp: Option<Box<FileStamp>>,
    /// Kept in our archive (its agent deleted it): read only, resumed
    /// after a `restore --from-archive`; `path` is the entry's manifest.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub archived: bool,
}

impl SessionRecord {
    /// The session file's modification time (seconds since the epoch),
    /// when the listing looked at it on the way.
    pub fn modified_at(&self) -> Option<f64> {
        let ns = self.stamp.as_ref()?.mtime_ns;
        Some(ns.div_euclid(1_000_000_000) as f64 + ns.rem_euclid(1_000_000_000) as f64 / 1e9)
    }

    /// The stamp its file had when the listing looked, when `name` (a path
    /// in the folder `root`) is that file.
    pub fn stamp_as(&self, root: &std::path::Path, name: &str) -> Option<FileStamp> {
        let stamp = self.stamp.as_deref()?;
        let root = root.as_os_str().as_encoded_bytes();
        let root = root.strip_suffix(b"/").unwrap_or(root);
        let path = self.path.as_os_str().as_encoded_bytes();
        let rest = path.strip_prefix(root)?.strip_prefix(b"/")?;
        (rest == name.as_bytes()).then_some(*stamp)
    }

    /// A record for an entry that could not be read. `raw_id` is the id
    /// the reader found; one [`SessionId::check`] refuses is listed under
    /// a stand-in id, the refusal first among the reasons.
    pub fn damaged(
        raw_id: &str,
        path: PathBuf,
        conversation_dir: PathBuf,
        user: &str,
        error: String,
    ) -> Self {
        let (id, error) = match SessionId::check(raw_id) {
            Ok(id) => (id, error),
            Err(why) => {
                // Readers whose only complaint is the id pass the refusal itself.
                let error = if error == why {
                    format!("{}: {why}", path.display())
                } else {
                    format!("{}: {why}; {error}", path.display())
                };
                (SessionId::stand_in(&path), error)
            }
        };
        let title = if raw_id.is_empty() {
            id.to_string()
        } else {
            crate::store::format::safe_text::safe_line(raw_id).into_owned()
        };
        SessionRecord {
            name: title.clone(),
            title,
            id,
            user: user.to_string(),
            path,
            conversation_dir,
            error: Some(error),
            ..SessionRecord::default()
        }
    }

    /// The name a person reads in a list of hits: a Loki session's name,
    /// another agent's title.
    pub fn shown_name(&self) -> &str {
        if self.agent.is_external() && !self.title.is_empty() {
            &self.title
        } else {
            &self.name
        }
    }

    /// What the list shows as the session's name: another agent's title
    /// (its blanks folded to one space), a Loki or peteos session's name.
    pub fn label(&self) -> String {
        if self.agent.is_external() {
            self.title.split_whitespace().collect::<Vec<_>>().join(" ")
        } else {
            self.name.clone()
        }
    }

    /// The last folder of where the session worked (the list's PROJECT).
    pub fn project(&self) -> Option<&str> {
        self.cwd
            .as_deref()
            .and_then(|c| c.trim_end_matches('/').rsplit('/').next())
            .filter(|p| !p.is_empty())
    }

    /// True when the session's metadata could be read.
    pub fn is_readable(&self) -> bool {
        self.error.is_none()
    }

    /// Refuses to resume a session whose listing found it damaged. Another
    /// agent's session resumes in the agent (nothing of it is written
    /// here), so only its damage refuses it.
    pub fn resumable(&self) -> Result<()> {
        self.not_archived("resumed")?;
        match (&self.error, self.agent.is_external()) {
            (Some(error), true) => Err(StoreError::Damaged(format!(
                "session {} could not be read: {error}",
                self.id
            ))),
            (None, true) => Ok(()),
            _ => self.writable(),
        }
    }

    /// The record standing for session `id` of `agent`, no longer found
    /// where it was listed.
    pub fn gone(agent: Agent, id: &str) -> Self {
        SessionRecord {
            agent,
            ..SessionRecord::damaged(
                id,
                Default::default(),
                Default::default(),
                "",
                format!(
                    "session {} is gone",
                    crate::store::format::safe_text::safe_line(id)
                ),
            )
        }
    }

    /// Refuses a trim (a window, a drop, a clear): Loki and peteos
    /// sessions as [`SessionRecord::writable`] says; Claude Code and Codex
    /// sessions are forked into a new session beside them (never written),
    /// unless damaged; other agents' (their provider names no fork layout)
    /// are not trimmed yet.
    pub fn trimmable(&self) -> Result<()> {
        self.not_archived("forked")?;
        let provider = self.agent.provider();
        if !provider.is_external() {
            return self.writable();
        }
        if provider.fork_layout().is_none() {
            return Err(StoreError::Unsupported(format!(
                "{} sessions cannot be trimmed or forked here yet (Claude Code and Codex sessions can): {}",
                self.agent.display_name(),
                self.path.display()
            )));
        }
        match &self.error {
            None => Ok(()),
            Some(error) => Err(StoreError::Damaged(format!(
                "session {} could not be read, so it is not forked: {error}",
                self.id
            ))),
        }
    }

    /// Refuses what only a session in its agent's folder can be: an
    /// archived one is read there until it is restored.
    pub fn not_archived(&self, what: &str) -> Result<()> {
        if self.archived {
            return Err(StoreError::Unsupported(format!(
                "session {} is in the archive (its agent deleted it), so it is not {what}: `loki-sessions restore {} --from-archive` puts it back first",
                self.id, self.id
            )));
        }
        Ok(())
    }

    /// Refuses to write to a session whose listing found it damaged: what
    /// could not be read is left exactly as it is (reading is still
    /// allowed). This is the part of the read-only rule known without
    /// reading the conversation; `Target::writable` adds the rest.
    pub fn writable(&self) -> Result<()> {
        if self.agent.is_external() {
            return Err(StoreError::Unsupported(format!(
                "{} sessions are never changed here: a trim writes a new session beside one, a delete moves it to the trash; this cannot be done to it ({})",
                self.agent.display_name(),
                self.path.display()
            )));
        }
        match &self.error {
            Some(error) => Err(StoreError::Damaged(format!(
                "session {} is damaged, so it is left as it is: {error}",
                self.id
            ))),
            None => Ok(()),
        }
    }
}

/// Orders records as every list shows them: most recently used first, then by
/// id so equal times have a stable order; damaged ones (time 0) sink.
pub fn sort_by_recent_use(records: &mut [SessionRecord]) {
    records.sort_by(recent_first);
}

/// Most recently used first, then by id.
fn recent_first(a: &SessionRecord, b: &SessionRecord) -> std::cmp::Ordering {
    b.last_used_at
        .total_cmp(&a.last_used_at)
        .then_with(|| a.id.cmp(&b.id))
}

/// Every record a scan hands over, most recently used first.
pub fn listed(
    scan: impl FnOnce(&mut dyn FnMut(Vec<SessionRecord>) -> bool) -> Result<()>,
) -> Result<Vec<SessionRecord>> {
    let mut batches: Vec<Vec<SessionRecord>> = Vec::new();
    scan(&mut |batch| {
        batches.push(batch);
        true
    })?;
    // Sorted as positions, then each record moved once into its place:
    // sorting the records themselves, or gathering the batches first,
    // moves every one many times over.
    // Each position carries its record's last use, so most comparisons
    // never reach into the records (scattered in memory).
    let mut order: Vec<(f64, usize, usize)> = batches
        .iter()
        .enumerate()
        .flat_map(|(b, batch)| {
            batch
                .iter()
                .enumerate()
                .map(move |(i, r)| (r.last_used_at, b, i))
        })
        .collect();
    let at = |&(_, b, i): &(f64, usize, usize)| &batches[b][i];
    order.sort_unstable_by(|x, y| {
        y.0.total_cmp(&x.0)
            .then_with(|| recent_first(at(x), at(y)))
            .then((x.1, x.2).cmp(&(y.1, y.2)))
    });
    Ok(order
        .iter()
        .map(|&(_, b, i)| std::mem::take(&mut batches[b][i]))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The listing's order is every list's order: the batches gathered
        /// and sorted by recent use (a stable sort, so records equal in
        /// time and id keep the order they were handed over in).
        #[test]
        fn listed_is_the_batches_sorted_by_recent_use(
            batches in prop::collection::vec(
                prop::collection::vec((0u8..4, 0u8..4, any::<bool>()), 0..20),
                0..6,
            )
        ) {
            // Each named by its place in the batches it came in.
            let make = |place: String, (used, id, nan): (u8, u8, bool)| SessionRecord {
                id: format!("id-{id}").as_str().into(),
                name: place,
                last_used_at: if nan { f64::NAN } else { f64::from(used) },
                ..SessionRecord::default()
            };
            let batches: Vec<Vec<SessionRecord>> = batches
                .into_iter()
                .enumerate()
                .map(|(b, batch)| {
                    batch
                        .into_iter()
                        .enumerate()
                        .map(|(i, r)| make(format!("{b}.{i}"), r))
                        .collect()
                })
                .collect();
            let mut expected: Vec<SessionRecord> = batches.concat();
            sort_by_recent_use(&mut expected);
            let got = listed(|on_batch| {
                for batch in batches {
                    on_batch(batch);
                }
                Ok(())
            })
            .unwrap();
            let names = |records: &[SessionRecord]| -> Vec<String> {
                records.iter().map(|r| r.name.clone()).collect()
            };
            prop_assert_eq!(names(&got), names(&expected));
        }
    }

    /// The stamp the listing saw stands for the record's own file alone,
    /// named by its path in the folder listed.
    #[test]
    fn the_stamp_seen_is_the_records_own_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p/a.jsonl");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, b"{}").unwrap();
        let st = rustix::fs::lstat(&path).unwrap();
        let record = SessionRecord {
            path: path.clone(),
            ..SessionRecord::default()
        };
        assert_eq!(
            record.stamp_as(dir.path(), "p/a.jsonl"),
            None,
            "not looked at"
        );
        let stamp = FileStamp::of(&st);
        let seen = Some(stamp);
        let record = SessionRecord {
            stamp: Some(Box::new(stamp)),
            ..record
        };
        let ns = stamp.mtime_ns;
        assert!((record.modified_at().unwrap() - ns as f64 / 1e9).abs() < 1e-6);
        assert_eq!(record.stamp_as(dir.path(), "p/a.jsonl"), seen);
        let slashed = format!("{}/", dir.path().display());
        assert_eq!(
            record.stamp_as(std::path::Path::new(&slashed), "p/a.jsonl"),
            seen
        );
        assert_eq!(record.stamp_as(dir.path(), "p/b.jsonl"), None);
        assert_eq!(record.stamp_as(dir.path(), "a.jsonl"), None);
        assert_eq!(record.stamp_as(&dir.path().join("p"), "p/a.jsonl"), None);
    }
}
