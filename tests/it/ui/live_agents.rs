//! The UI following every source it lists, through the real loop: beside
//! a Loki tree, a Claude Code session an agent appends to is read again in
//! place (its row's messages grow, marked live), a new one appears, and a
//! deleted Claude Code, Codex or Gemini CLI session leaves the list, with
//! no key pressed; an OpenCode session is followed as OpenCode writes its
//! database.

use crate::common::*;
use loki_sessions::demo::agents::{self, AgentsSpec};
use loki_sessions::store::{Agent, AgentHomes, Store, StoreKind, WatchOptions};
use loki_sessions::tui::live::Live;
use loki_sessions::tui::model::{Model, Settings};
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A small Loki tree and every agent's generated sessions in a home
/// beside it, open in the real loop with the watcher.
fn open(tmp: &Path) -> Live {
    let root = tmp.join("store");
    std::fs::create_dir(&root).unwrap();
    ok(
        &root,
        &[
            "demo",
            "--sessions",
            "3",
            "--messages",
            "6",
            "--big-context",
            "0",
            "--plain",
        ],
    );
    let now = loki_sessions::store::now_seconds();
    agents::generate(
        &tmp.join("home"),
        &AgentsSpec {
            hostile: false,
            ..AgentsSpec::fixtures(now)
        },
    )
    .unwrap();
    let store = sandbox::store(
        Store::loki(&root, "tester")
            .unwrap()
            .with_agents(&AgentHomes::under(&tmp.join("home"))),
    );
    let settings = Settings {
        watch: Some(WatchOptions::default()),
        ..ui_settings(StoreKind::Loki)
    };
    let mut ui = Live::open(store, settings, 140, 40);
    let ready = ui.run_until(patience(Duration::from_secs(30)), |m| {
        !m.list.scanning && m.app.watch.is_some() && agent_rows(m, Agent::Codex) > 0
    });
    assert!(ready.is_some(), "the list and the watcher never came up");
    // The stats of every row, so a change shows as a change.
    let counted = ui.run_until(patience(Duration::from_secs(30)), |m| {
        m.list
            .rows
            .iter()
            .filter(|r| !r.gone)
            .all(|r| r.stats.is_some())
    });
    assert!(counted.is_some(), "the rows' stats never came");
    ui
}

fn agent_rows(m: &Model, agent: Agent) -> usize {
    m.list
        .rows
        .iter()
        .filter(|r| !r.gone && r.record.agent == agent)
        .count()
}

/// The row of `agent` read from `path`, its id and its file.
fn row_of(ui: &Live, agent: Agent) -> (String, PathBuf) {
    let row = ui
        .model
        .list
        .rows
        .iter()
        .filter(|r| !r.gone && r.record.agent == agent && r.record.error.is_none())
        .filter(|r| r.stats.as_ref().is_some_and(|s| s.messages.is_some()))
        .max_by(|a, b| a.record.last_used_at.total_cmp(&b.record.last_used_at))
        .expect("a readable row of the agent");
    (row.record.id.to_string(), row.record.path.clone())
}

fn listed(m: &Model, id: &str) -> bool {
    m.list
        .by_id
        .get(id)
        .is_some_and(|&i| m.list.visible.contains(&i))
}

/// A prompt line of Claude Code chained after the last line of `file`.
fn claude_prompt(file: &Path, text: &str) -> String {
    let body = std::fs::read_to_string(file).unwrap();
    let last: Value = body
        .lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v.get("uuid").is_some() && v["isSidechain"] != json!(true))
        .unwrap();
    let line = json!({
        "parentUuid": last["uuid"], "isSidechain": false, "userType": "external",
        "cwd": last["cwd"], "sessionId": last["sessionId"], "version": last["version"],
        "type": "user", "message": {"role": "user", "content": text},
        "uuid": uuid::Uuid::new_v4().to_string(), "timestamp": "2099-01-01T00:00:00.000Z"
    });
    format!("{line}\n")
}

#[test]
fn other_agents_sessions_are_followed_appended_to_made_and_deleted() {
    let tmp = tempfile::tempdir().unwrap();
    let mut ui = open(tmp.path());
    // An agent appends to a Claude Code session, in place (as Claude Code does).
    let (id, file) = row_of(&ui, Agent::Claude);
    let before = ui.model.list.rows[ui.model.list.by_id[&id]]
        .stats
        .as_ref()
        .and_then(|s| s.messages)
        .unwrap();
    let mut out = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    out.write_all(claude_prompt(&file, "a prompt typed while we watch").as_bytes())
        .unwrap();
    drop(out);
    let grown = ui.run_until(patience(Duration::from_secs(10)), |m| {
        let row = &m.list.rows[m.list.by_id[&id]];
        row.changed_at.is_some() && row.stats.as_ref().and_then(|s| s.messages) == Some(before + 1)
    });
    assert!(
        grown.is_some(),
        "the Claude Code row did not follow the append"
    );
    // A new Claude Code session in the same project.
    let new_id = uuid::Uuid::new_v4().to_string();
    let copy = std::fs::read_to_string(&file)
        .unwrap()
        .replace(file.file_stem().unwrap().to_str().unwrap(), &new_id);
    std::fs::write(file.with_file_name(format!("{new_id}.jsonl")), copy).unwrap();
    let came = ui.run_until(patience(Duration::from_secs(10)), |m| listed(m, &new_id));
    assert!(came.is_some(), "the new Claude Code session never showed");
    // Deleted sessions of each agent leave.
    for agent in [Agent::Claude, Agent::Codex, Agent::Gemini] {
        let (id, file) = row_of(&ui, agent);
        std::fs::remove_file(&file).unwrap();
        let went = ui.run_until(patience(Duration::from_secs(10)), |m| !listed(m, &id));
        assert!(went.is_some(), "the deleted {agent:?} session stayed");
    }
    assert!(
        ui.model
            .list
            .rows
            .iter()
            .any(|r| r.record.agent == Agent::Loki)
    );
}

#[test]
fn an_opencode_session_is_followed_as_opencode_writes_its_database() {
    let tmp = tempfile::tempdir().unwrap();
    let mut ui = open(tmp.path());
    let (id, db) = row_of(&ui, Agent::Opencode);
    let before = ui.model.list.rows[ui.model.list.by_id[&id]]
        .stats
        .as_ref()
        .and_then(|s| s.messages)
        .unwrap();
    // OpenCode running: its connection in WAL mode, a prompt written as
    // it writes one (a message, its text part, the session touched).
    let opencode = rusqlite::Connection::open(&db).unwrap();
    let at = 4_102_444_800_000_i64;
    opencode
        .execute_batch(&format!(
            "BEGIN;
             INSERT INTO message VALUES ('msg_zzwatched', '{id}', {at}, {at}, '{{\"role\":\"user\",\"time\":{{\"created\":{at}}}}}');
             INSERT INTO part VALUES ('prt_zzwatched', 'msg_zzwatched', '{id}', {at}, {at}, '{{\"type\":\"text\",\"text\":\"a prompt typed while we watch\"}}');
             UPDATE session SET time_updated = {at} WHERE id = '{id}';
             COMMIT;"
        ))
        .unwrap();
    let grown = ui.run_until(patience(Duration::from_secs(10)), |m| {
        let row = &m.list.rows[m.list.by_id[&id]];
        row.changed_at.is_some() && row.stats.as_ref().and_then(|s| s.messages) == Some(before + 1)
    });
    assert!(
        grown.is_some(),
        "the OpenCode row did not follow the prompt"
    );
    // A new session.
    opencode
        .execute(
            "INSERT INTO session VALUES ('ses_zzwatchednew', 'p', NULL, 's', '/srv', 'Made while watched', '1.2.10', ?1, ?1, NULL, NULL)",
            [at + 1],
        )
        .unwrap();
    let came = ui.run_until(patience(Duration::from_secs(10)), |m| {
        listed(m, "ses_zzwatchednew")
    });
    assert!(came.is_some(), "the new OpenCode session never showed");
}
