//! OpenCode's sessions (1.2 and later): one SQLite database,
//! `$XDG_DATA_HOME/opencode/opencode.db` (else
//! `~/.local/share/opencode/opencode.db`), holding every session. A
//! `session` row is a session (`parent_id` set: a subagent's, shown with
//! its parent); its `message` rows are the messages (`data`: the message
//! as JSON, its role, model, tokens and cost), and their `part` rows the
//! content (`data`: text, reasoning, a tool call with its state and
//! result, a file). Read only, through `db.rs` (nothing written beside
//! the database); not trimmed, moved nor deleted here. The format is
//! stated in `docs/FORMATS.md`.

mod db;
mod messages;
pub mod provider;

use crate::store::error::{Result, StoreError};
use crate::store::format::SessionId;
use crate::store::format::naming::name_from_prompt;
use crate::store::format::safe_text::safe_line;
use crate::store::sources::agent::Agent;
use crate::store::sources::agent_read::AgentRead;
use crate::store::sources::record::SessionRecord;
use rusqlite::{Connection, OptionalExtension, Row};
use std::path::{Path, PathBuf};

/// The database's name in OpenCode's data folder.
pub const DATABASE: &str = "opencode.db";

/// How deep subagents of subagents are followed.
const MAX_DEPTH: usize = 8;

/// The listing's columns of a session (`s`), the first thing a person
/// typed in it (a text part of its first user message, not one OpenCode
/// added) and when its last message was written.
const LISTED: &str = "SELECT s.id, s.directory, s.title, s.time_created, s.time_updated,
    (SELECT json_extract(p.data, '$.text') FROM message m JOIN part p ON p.message_id = m.id
      WHERE m.session_id = s.id AND json_extract(m.data, '$.role') = 'user'
        AND json_extract(p.data, '$.type') = 'text'
        AND coalesce(json_extract(p.data, '$.synthetic'), 0) = 0
      ORDER BY m.time_created, m.id, p.id LIMIT 1),
    (SELECT max(m.time_created) FROM message m WHERE m.session_id = s.id)
  FROM session s";

/// OpenCode's data folder. Opening does no I/O.
#[derive(Clone, Debug)]
pub struct OpencodeData {
    dir: PathBuf,
}

impl OpencodeData {
    /// The folder `dir` (`~/.local/share/opencode`).
    pub fn open(dir: &Path) -> OpencodeData {
        OpencodeData {
            dir: dir.to_path_buf(),
        }
    }

    /// The database, when there is one.
    pub fn database(&self) -> Option<PathBuf> {
        let db = self.dir.join(DATABASE);
        std::fs::symlink_metadata(&db)
            .is_ok_and(|m| m.is_file())
            .then_some(db)
    }

    /// Every session but subagents', newest first, in batches; a database
    /// that cannot be read is one damaged record naming it.
    pub fn scan(&self, on_batch: &mut dyn FnMut(Vec<SessionRecord>) -> bool) -> Result<()> {
        let Some(db) = self.database() else {
            return Ok(());
        };
        let sql = format!("{LISTED} WHERE s.parent_id IS NULL ORDER BY s.time_updated DESC");
        let records = db::read(&db, |conn| {
            let mut stmt = conn.prepare(&sql)?;
            let rows = stmt.query_map([], |row| listed(row, &db, &self.dir))?;
            rows.collect::<rusqlite::Result<Vec<SessionRecord>>>()
        });
        let records = records.unwrap_or_else(|e| vec![damaged(DATABASE, &db, e.to_string())]);
        for chunk in records.chunks(2_000) {
            if !on_batch(chunk.to_vec()) {
                break;
            }
        }
        Ok(())
    }

    /// The ids of every session but subagents'.
    pub fn ids(&self) -> Vec<(SessionId, PathBuf)> {
        let Some(db) = self.database() else {
            return Vec::new();
        };
        let ids = db::read(&db, |conn| {
            let mut stmt = conn.prepare("SELECT id FROM session WHERE parent_id IS NULL")?;
            let rows = stmt.query_map([], |row| row.get::<_, String>(0))?;
            rows.collect::<rusqlite::Result<Vec<String>>>()
        });
        ids.unwrap_or_default()
            .into_iter()
            .map(|id| (SessionId::of_file(&id, &db), db.clone()))
            .collect()
    }

    /// The sessions (a subagent's: its parent) with a message or a change
    /// after `mark` (milliseconds, OpenCode's clock), and the latest such
    /// time now; only that time when `mark` is None.
    pub fn changed_since(&self, mark: Option<f64>) -> Option<(Vec<(SessionId, PathBuf)>, f64)> {
        let db = self.database()?;
        let found = db::read(&db, |conn| {
            let latest: f64 = conn.query_row(
                "SELECT max(coalesce((SELECT max(time_updated) FROM session), 0),
                            coalesce((SELECT max(time_updated) FROM message), 0))",
                [],
                |row| row.get::<_, i64>(0),
            )? as f64;
            let Some(mark) = mark else {
                return Ok((Vec::new(), latest));
            };
            let mut stmt = conn.prepare(
                "SELECT coalesce(s.parent_id, s.id) FROM session s WHERE s.time_updated > ?1
                 UNION
                 SELECT coalesce(s.parent_id, s.id) FROM message m JOIN session s ON s.id = m.session_id
                   WHERE m.time_updated > ?1",
            )?;
            let rows = stmt.query_map([mark as i64], |row| row.get::<_, String>(0))?;
            Ok((rows.collect::<rusqlite::Result<Vec<String>>>()?, latest))
        });
        let (ids, latest) = found.ok()?;
        let changed = ids
            .into_iter()
            .map(|id| (SessionId::of_file(&id, &db), db.clone()))
            .collect();
        Some((changed, latest.max(mark.unwrap_or(0.0))))
    }

    /// The record of session `id` in the database `db`.
    pub fn record_of(id: &str, db: &Path) -> SessionRecord {
        let dir = db.parent().unwrap_or(db).to_path_buf();
        let sql = format!("{LISTED} WHERE s.id = ?1");
        let found = db::read(db, |conn| {
            conn.query_row(&sql, [id], |row| listed(row, db, &dir))
                .optional()
        });
        match found {
            Ok(Some(record)) => record,
            Ok(None) => damaged(
                id,
                db,
                format!(
                    "{}: no session {} in OpenCode's database",
                    db.display(),
                    safe_line(id)
                ),
            ),
            Err(e) => damaged(DATABASE, db, e.to_string()),
        }
    }

    /// The session `record` read whole, its subagents' sessions as threads
    /// (their usage counted with it), all in one snapshot of the database.
    pub fn read(record: &SessionRecord) -> Result<AgentRead> {
        let sessions = db::read(&record.path, |conn| {
            let mut out = vec![messages::rows(conn, record.id.as_str(), None)?];
            let mut seen = vec![record.id.to_string()];
            let mut parents = vec![record.id.to_string()];
            for _ in 0..MAX_DEPTH {
                let mut next = Vec::new();
                for parent in &parents {
                    for child in children(conn, parent)? {
                        if seen.contains(&child) {
                            continue;
                        }
                        seen.push(child.clone());
                        out.push(messages::rows(conn, &child, Some(parent))?);
                        next.push(child);
                    }
                }
                parents = next;
            }
            Ok(out)
        })?;
        // The session's own rows come first.
        let Some((main, subagents)) = sessions.split_first() else {
            return Err(StoreError::NotFound(format!("session {}", record.id)));
        };
        let mut read = messages::thread(main, &record.path)?;
        for sub in subagents {
            let sub = messages::thread(sub, &record.path)?;
            read.usage.merge(&sub.usage);
            read.skipped.absorb(sub.skipped);
            read.others.push(sub.main);
        }
        Ok(read)
    }

    /// Apparent bytes of `record`'s rows (its messages and their parts).
    pub fn bytes(record: &SessionRecord) -> u64 {
        let sum = db::read(&record.path, |conn| {
            conn.query_row(
                "SELECT coalesce((SELECT sum(length(CAST(data AS BLOB))) FROM message WHERE session_id = ?1), 0)
                      + coalesce((SELECT sum(length(CAST(data AS BLOB))) FROM part WHERE session_id = ?1), 0)",
                [record.id.as_str()],
                |row| row.get::<_, i64>(0),
            )
        });
        sum.map_or(0, |n| n.max(0) as u64)
    }
}

/// The sessions whose parent is `id` (its subagents').
fn children(conn: &Connection, id: &str) -> rusqlite::Result<Vec<String>> {
    let mut stmt =
        conn.prepare("SELECT id FROM session WHERE parent_id = ?1 ORDER BY time_created")?;
    let rows = stmt.query_map([id], |row| row.get::<_, String>(0))?;
    rows.collect()
}

/// OpenCode's title before one is made from the conversation.
fn is_placeholder(title: &str) -> bool {
    title.starts_with("New session - ") || title.starts_with("Child session - ")
}

/// The record of a row of [`LISTED`].
fn listed(row: &Row<'_>, db: &Path, dir: &Path) -> rusqlite::Result<SessionRecord> {
    let raw_id: String = row.get(0)?;
    let directory: Option<String> = row.get(1)?;
    let title: Option<String> = row.get(2)?;
    let ms = |i: usize| -> rusqlite::Result<Option<f64>> {
        Ok(row.get::<_, Option<i64>>(i)?.map(|t| t as f64 / 1000.0))
    };
    let (created, updated, last_message) = (ms(3)?, ms(4)?, ms(6)?);
    let prompt: String = row.get::<_, Option<String>>(5)?.unwrap_or_default();
    let title = title
        .filter(|t| !t.trim().is_empty() && !is_placeholder(t))
        .unwrap_or_else(|| prompt.clone());
    let id = SessionId::of_file(&raw_id, db);
    if id.as_str() != raw_id {
        let why = format!("{}: a session id that is not safe to use", db.display());
        return Ok(damaged(&raw_id, db, why));
    }
    let user = crate::store::sources::agents::user_name();
    let created = created.unwrap_or(0.0);
    Ok(SessionRecord {
        agent: Agent::Opencode,
        name: name_from_prompt(&title),
        title,
        cwd: directory.filter(|d| d.starts_with('/')),
        first_prompt: prompt,
        user,
        created_at: created,
        last_used_at: [updated, last_message]
            .into_iter()
            .flatten()
            .fold(created, f64::max),
        path: db.to_path_buf(),
        conversation_dir: dir.to_path_buf(),
        error: None,
        bytes: None,
        stamp: None,
        id,
        archived: false,
    })
}

/// A damaged record of the database `db`, standing for the session
/// `raw_id` (checked as every id is: one refused is a stand-in), `why`
/// saying what is wrong.
pub(crate) fn damaged(raw_id: &str, db: &Path, why: String) -> SessionRecord {
    SessionRecord {
        agent: Agent::Opencode,
        ..SessionRecord::damaged(
            raw_id,
            db.to_path_buf(),
            db.parent().unwrap_or(db).to_path_buf(),
            &crate::store::sources::agents::user_name(),
            why,
        )
    }
}

#[cfg(test)]
mod tests;
