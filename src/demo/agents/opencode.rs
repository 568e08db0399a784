//! OpenCode sessions as OpenCode 1.2+ writes them: rows of one SQLite
//! database (`opencode.db`, in WAL mode) made through SQLite itself. A
//! `project`, `session` rows (a subagent's with its `parent_id`), `message`
//! rows whose `data` is the message without its content (an answer's
//! model, tokens and cost), and `part` rows: text, reasoning, tool calls
//! with their state, step markers. Some sessions have a subagent (a `task`
//! call naming the child session), a compaction, a failed call and an
//! aborted answer, or (with `hostile`) a part that is not JSON and one of
//! a type no reader knows.

use super::{AgentsSpec, AgentsSummary, project_dir, start_of};
use crate::demo::corpus::{Corpus, Rng};
use crate::store::error::{IoContext, Result, StoreError};
use rusqlite::{Connection, params};
use serde_json::{Value, json};
use std::path::Path;

/// The tables a reader needs, as OpenCode's first SQLite migration made
/// them (later columns left out: readers must not need them).
const SCHEMA: &str = "
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, vcs TEXT, name TEXT,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, sandboxes TEXT NOT NULL);
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT,
  slug TEXT NOT NULL, directory TEXT NOT NULL, title TEXT NOT NULL, version TEXT NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, time_compacting INTEGER,
  time_archived INTEGER);
CREATE INDEX session_parent_idx ON session (parent_id);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX message_session_idx ON message (session_id, time_created, id);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX part_message_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
";

/// An id as OpenCode makes them: a prefix and 26 characters.
fn id(prefix: &str, rng: &mut Rng) -> String {
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyz";
    let tail: String = (0..26)
        .map(|_| ALPHABET[rng.below(ALPHABET.len())] as char)
        .collect();
    format!("{prefix}_{tail}")
}

/// One session being written.
struct Writer<'a> {
    conn: &'a Connection,
    session: String,
    cwd: String,
    clock: f64,
    rng: Rng,
    model: &'static str,
    /// Ids made in order, so later messages and parts sort after earlier.
    serial: u64,
}

impl Writer<'_> {
    fn ms(&mut self) -> i64 {
        self.clock += 1.0 + self.rng.unit() * 8.0;
        (self.clock * 1000.0) as i64
    }

    fn next_id(&mut self, prefix: &str) -> String {
        self.serial += 1;
        format!(
            "{prefix}_{:012}{}",
            self.serial,
            &id("", &mut self.rng)[1..15]
        )
    }

    fn message(&mut self, data: Value) -> Result<String> {
        let at = self.ms();
        let id = self.next_id("msg");
        let mut data = data;
        data["time"]["created"] = json!(at);
        self.conn
            .execute(
                "INSERT INTO message VALUES (?1, ?2, ?3, ?3, ?4)",
                params![id, self.session, at, data.to_string()],
            )
            .map_err(sql)?;
        Ok(id)
    }

    fn part(&mut self, message: &str, data: &str) -> Result<()> {
        let at = self.ms();
        let id = self.next_id("prt");
        self.conn
            .execute(
                "INSERT INTO part VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
                params![id, message, self.session, at, data],
            )
            .map_err(sql)?;
        Ok(())
    }

    fn user(&mut self, text: &str) -> Result<String> {
        let m = self.message(json!({"role": "user", "time": {}, "agent": "build",
            "model": {"providerID": "anthropic", "modelID": self.model}}))?;
        self.part(&m, &json!({"type": "text", "text": text}).to_string())?;
        Ok(m)
    }

    /// An answer with its tokens; `parts` its content between the steps.
    fn answer(&mut self, parent: &str, parts: &[Value], extra: Value) -> Result<String> {
        let input = 200 + self.rng.below(3_000) as u64;
        let read = self.rng.below(40_000) as u64;
        let write = self.rng.below(2_000) as u64;
        let output = 20 + self.rng.below(900) as u64;
        let reasoning = self.rng.below(200) as u64;
        let tokens = json!({"input": input, "output": output, "reasoning": reasoning,
            "cache": {"read": read, "write": write}});
        let mut data = json!({"role": "assistant", "time": {}, "parentID": parent,
            "modelID": self.model, "providerID": "anthropic", "mode": "build", "agent": "build",
            "path": {"cwd": self.cwd, "root": self.cwd}, "cost": 0.0, "tokens": tokens,
            "finish": "stop"});
        if let (Some(d), Some(e)) = (data.as_object_mut(), extra.as_object()) {
            d.extend(e.clone());
        }
        let m = self.message(data)?;
        self.part(&m, r#"{"type":"step-start","snapshot":"4b825dc6"}"#)?;
        for p in parts {
            self.part(&m, &p.to_string())?;
        }
        let finish =
            json!({"type": "step-finish", "reason": "stop", "cost": 0.0, "tokens": tokens});
        self.part(&m, &finish.to_string())?;
        Ok(m)
    }

    fn turn(&mut self, prompt: &str, corpus: &Corpus) -> Result<()> {
        let user = self.user(prompt)?;
        let mut parts = vec![json!({"type": "reasoning", "text": self.rng.pick(&corpus.thinking)})];
        if self.rng.below(2) == 0 {
            let call = format!("toolu_{:016x}", self.rng.next_u64());
            parts.push(json!({"type": "tool", "callID": call, "tool": "bash",
                "state": {"status": "completed", "input": {"command": "cargo test", "description": "Run the tests"},
                    "output": self.rng.pick(&corpus.tool_outputs), "title": "Run the tests",
                    "metadata": {"exit": 0}, "time": {"start": 1, "end": 2}}}));
        }
        parts.push(json!({"type": "text", "text": self.rng.pick(&corpus.replies)}));
        self.answer(&user, &parts, json!({}))?;
        Ok(())
    }
}

fn sql(e: rusqlite::Error) -> StoreError {
    StoreError::Failed(format!("the demo's OpenCode database: {e}"))
}

/// Writes the sessions of `spec` into `data/opencode.db` (`data` being
/// `~/.local/share/opencode`).
pub fn generate(
    data: &Path,
    spec: &AgentsSpec,
    corpus: &Corpus,
    summary: &mut AgentsSummary,
) -> Result<()> {
    if spec.opencode == 0 {
        return Ok(());
    }
    std::fs::create_dir_all(data).ctx("create", data)?;
    let path = data.join(crate::store::sources::opencode::DATABASE);
    let mut conn = Connection::open(&path).map_err(sql)?;
    conn.pragma_update(None, "journal_mode", "WAL")
        .map_err(sql)?;
    conn.execute_batch(SCHEMA).map_err(sql)?;
    let tx = conn.transaction().map_err(sql)?;
    for index in 0..spec.opencode {
        let mut rng = Rng::new(spec.seed.wrapping_mul(0x0C0DE) ^ index as u64);
        let session = id("ses", &mut rng);
        let cwd = project_dir(&mut rng);
        let start = start_of(index, spec.opencode, spec.now, &mut rng);
        let shape = if spec.extras { index % 4 } else { 3 };
        let project = format!("{:040x}", rng.next_u64() as u128 * 0x9E37);
        tx.execute(
            "INSERT OR IGNORE INTO project VALUES (?1, ?2, 'git', NULL, ?3, ?3, '[]')",
            params![project, cwd, (start * 1000.0) as i64],
        )
        .map_err(sql)?;
        let mut w = Writer {
            conn: &tx,
            session: session.clone(),
            cwd: cwd.clone(),
            clock: start,
            rng: Rng::new(rng.next_u64()),
            model: rng.pick::<&str>(&["claude-sonnet-4-5", "claude-haiku-4-5"]),
            serial: 0,
        };
        let turns = spec.turns / 2 + rng.below(spec.turns.max(1));
        let first = *rng.pick::<&str>(&corpus.prompts);
        for t in 0..turns.max(1) {
            let prompt = if t == 0 {
                first
            } else {
                *rng.pick::<&str>(&corpus.prompts)
            };
            w.turn(prompt, corpus)?;
        }
        let mut title = format!("New session - {}", super::iso_z(start));
        match shape {
            0 => {
                // A subagent: a `task` call naming the child session.
                let child = id("ses", &mut rng);
                let user = w.user("Map the modules that touch billing")?;
                let call = json!({"type": "tool", "callID": "toolu_task1", "tool": "task",
                    "state": {"status": "completed", "input": {"description": "Map billing", "prompt": "List the modules that touch billing", "subagent_type": "explore"},
                        "output": "billing/, invoices/ and the cron job.", "title": "Map billing",
                        "metadata": {"sessionId": child}, "time": {"start": 1, "end": 2}}});
                w.answer(
                    &user,
                    &[
                        call,
                        json!({"type": "text", "text": "Billing lives in three places."}),
                    ],
                    json!({}),
                )?;
                let mut sub = Writer {
                    session: child.clone(),
                    ..w
                };
                tx.execute(
                    "INSERT INTO session VALUES (?1, ?2, ?3, 'calm-fox', ?4, 'Map billing (@explore subagent)', '1.2.10', ?5, ?5, NULL, NULL)",
                    params![child, project, session, cwd, (sub.clock * 1000.0) as i64],
                )
                .map_err(sql)?;
                let ask = sub.user("List the modules that touch billing")?;
                sub.answer(
                    &ask,
                    &[json!({"type": "text", "text": "billing/, invoices/ and the cron job."})],
                    json!({}),
                )?;
                w = Writer {
                    session: session.clone(),
                    ..sub
                };
                title = "Billing module map".into();
            }
            1 => {
                // A compaction: the person's turn asks, a summary answers.
                let ask = w.message(json!({"role": "user", "time": {}, "agent": "build",
                    "model": {"providerID": "anthropic", "modelID": w.model}}))?;
                w.part(&ask, r#"{"type":"compaction","auto":true}"#)?;
                w.answer(&ask, &[json!({"type": "text", "text": "We profiled the search page and cached the facets."})], json!({"summary": true}))?;
                w.turn("Now the tests for the cache", corpus)?;
                title = "Search page speed-up".into();
            }
            2 => {
                // A failed call, then an answer cut short.
                let user = w.user("Deploy it to staging")?;
                let failed = json!({"type": "tool", "callID": "toolu_fail1", "tool": "bash",
                    "state": {"status": "error", "input": {"command": "make deploy"},
                        "error": "make: *** No rule to make target 'deploy'.", "time": {"start": 1, "end": 2}}});
                w.answer(&user, &[failed], json!({}))?;
                w.answer(&user, &[json!({"type": "text", "text": "Trying the script inst"})],
                    json!({"error": {"name": "MessageAbortedError", "data": {"message": "The operation was aborted."}}}))?;
            }
            _ if spec.hostile => {
                let user = w.user("What changed in the last release?")?;
                let m = w.answer(&user, &[], json!({}))?;
                w.part(&m, "{not json")?;
                w.part(&m, r#"{"type":"hologram","text":"from a newer OpenCode"}"#)?;
            }
            _ => {}
        }
        tx.execute(
            "INSERT INTO session VALUES (?1, ?2, NULL, 'brave-otter', ?3, ?4, '1.2.10', ?5, ?6, NULL, NULL)",
            params![session, project, cwd, title, (start * 1000.0) as i64, (w.clock * 1000.0) as i64],
        )
        .map_err(sql)?;
        summary.opencode.push(session);
    }
    tx.commit().map_err(sql)?;
    // Closed, as OpenCode closes it: its `-wal` and `-shm` go.
    conn.close().map_err(|(_, e)| sql(e))
}
