//! The list's FILL with the binary's default settings: a session whose
//! agent recorded no usage is measured against its agent's own window
//! (Claude Code 200k, Codex 272k, Gemini CLI 1M), not one window for all.

use crate::common::*;
use loki_sessions::store::{AgentHomes, Store, StoreKind};
use loki_sessions::tui::headless::Headless;
use serde_json::{Value, json};
use std::path::Path;

/// The window the binary measures each agent's sessions against when
/// neither the file nor the model says one (`config::AGENT_WINDOWS`).
const DEFAULT_WINDOWS: [(&str, u64); 3] = [
    ("claude", 200_000),
    ("codex", 272_000),
    ("gemini", 1_048_576),
];

fn write_lines(path: &Path, lines: &[Value]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(path, text).unwrap();
}

/// One session of each agent under `home`, a prompt of some 50,000 tokens
/// and no usage recorded, as each agent writes its files.
fn sessions_without_usage(home: &Path) {
    let long = "word ".repeat(50_000);
    let at = "2026-11-30T10:00:00.000Z";
    // Claude Code's in lines of 5,000 words: a reader looks for a line in
    // the file's first 64 KB.
    let id = "aaaaaaaa-1111-4111-8111-111111111111";
    let uuid = |n: usize| format!("bbbbbbbb-1111-4111-8111-{n:012}");
    let lines: Vec<Value> = (0..10)
        .map(|n| {
            json!({"type": "user", "sessionId": id, "uuid": uuid(n),
                "parentUuid": (n > 0).then(|| uuid(n - 1)), "isSidechain": false, "timestamp": at,
                "cwd": "/home/dev/src/fill", "message": {"role": "user", "content": "word ".repeat(5_000)}})
        })
        .collect();
    write_lines(
        &home.join(format!(".claude/projects/-home-dev-src-fill/{id}.jsonl")),
        &lines,
    );
    let id = "aaaaaaaa-2222-4222-8222-222222222222";
    write_lines(
        &home.join(format!(
            ".codex/sessions/2026/11/30/rollout-2026-11-30T10-00-00-{id}.jsonl"
        )),
        &[
            json!({"timestamp": at, "type": "session_meta", "payload": {"id": id, "timestamp": at,
                "cwd": "/home/dev/src/fill", "originator": "codex_cli_rs", "cli_version": "0.46.0"}}),
            json!({"timestamp": at, "type": "response_item", "payload": {"type": "message",
                "role": "user", "content": [{"type": "input_text", "text": long}]}}),
        ],
    );
    let id = "aaaaaaaa-3333-4333-8333-333333333333";
    let project = home.join(".gemini/tmp/fill");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join(".project_root"), "/home/dev/src/fill").unwrap();
    write_lines(
        &project.join("chats/session-2026-11-30T10-00-aaaaaaaa.jsonl"),
        &[
            json!({"sessionId": id, "projectHash": "0123456789abcdef", "startTime": at,
                "lastUpdated": at, "kind": "main"}),
            json!({"id": "m-1", "timestamp": at, "type": "user", "content": [{"text": long}]}),
        ],
    );
}

#[test]
fn each_agents_default_window_reaches_the_lists_fill() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    sessions_without_usage(&home);
    let store = Store::peteos_folder(&dir.path().join("none"))
        .primary_optional(true)
        .with_agents(&AgentHomes::under(&home));
    let settings = ui_settings(StoreKind::PeteosFolder);
    let mut ui = Headless::open(sandbox::store(store), settings, 120, 30, 1.8e9, || 1.8e9);
    ui.settle();
    let screen = ui.screen();
    for (agent, window) in DEFAULT_WINDOWS {
        let row = ui
            .model
            .list
            .rows
            .iter()
            .find(|r| r.record.agent.name() == agent)
            .unwrap_or_else(|| panic!("no {agent} row: {screen}"));
        let stats = row.stats.as_ref().expect("counted");
        assert!(stats.context.is_none(), "{agent}: no usage recorded");
        let tokens = stats
            .tokens
            .unwrap_or_else(|| panic!("{agent}: {stats:?}\n{screen}"));
        let fill = |window: u64| format!("{:.0}%", 100.0 * tokens as f64 / window as f64);
        assert_ne!(fill(window), fill(128_000), "{agent}: a figure that tells");
        let line = screen
            .lines()
            .find(|l| l.starts_with(&format!("{agent} ")))
            .unwrap();
        let shown = line.split_whitespace().find(|w| w.ends_with('%'));
        assert_eq!(shown, Some(fill(window).as_str()), "{agent}: {line}");
    }
}
