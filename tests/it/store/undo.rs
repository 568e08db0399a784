//! Undoing a trim on disk: making the parent context active again
//! (`Store::activate_context`, the viewer's contexts list) points
//! session.json back at the parent and changes nothing else, the parent
//! least of all.

use crate::common::*;
use crossterm::event::{KeyCode, KeyModifiers};
use loki_sessions::store::format::Session;
use loki_sessions::store::{Store, StoreKind};
use loki_sessions::tui::headless::Headless;
use loki_sessions::tui::model::{Screen, ViewerMode};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A store with a few sessions of about 30 messages; one, trimmed to its
/// last 3 messages, and the ids of its parent and child contexts.
fn trimmed_session(root: &Path) -> (String, PathBuf, String, String) {
    let args = [
        "demo",
        "--sessions",
        "4",
        "--messages",
        "30",
        "--big-context",
        "0",
        "--plain",
    ];
    ok(root, &args);
    let id = json(root, &["list", "--json"])[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let memory = sessions(root).join(&id).join("memory");
    let parent = active_id(&memory);
    let done = json(root, &["trim", &id, "--keep-messages", "3", "--json"]);
    let child = done["new_context_id"].as_str().unwrap().to_string();
    assert_eq!(active_id(&memory), child);
    (id, memory, parent, child)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn active_id(memory: &Path) -> String {
    let session = read_json(&memory.join("session.json"));
    session["active_context_id"].as_str().unwrap().to_string()
}

fn message_ids(memory: &Path, context: &str) -> Vec<String> {
    let session = Session::load(memory).unwrap();
    let ctx = session.load_context(context).unwrap();
    ctx.messages().map(|m| m.id().to_string()).collect()
}

/// Checks the store after an undo: session.json differs from `session_before`
/// only in pointing at the parent, and no other file changed.
fn check_undone(memory: &Path, parent: &str, before: &Files, session_before: &Value) {
    assert_eq!(active_id(memory), parent);
    let mut session = read_json(&memory.join("session.json"));
    session["active_context_id"] = session_before["active_context_id"].clone();
    assert_eq!(&session, session_before, "only active_context_id changed");
    let mut after = snapshot(memory);
    let mut before = before.clone();
    for files in [&mut after, &mut before] {
        files.remove(&memory.join("session.json"));
    }
    assert_eq!(
        after, before,
        "no context file changed, the parent included"
    );
}

type Files = std::collections::BTreeMap<PathBuf, Vec<u8>>;

#[test]
fn switching_back_undoes_a_trim_on_disk() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let (id, memory, parent, child) = trimmed_session(root);
    let all_messages = message_ids(&memory, &parent);
    let kept = message_ids(&memory, &child);
    assert!(all_messages.len() > kept.len(), "the trim dropped messages");
    let before = snapshot(&memory);
    let session_before = read_json(&memory.join("session.json"));

    let store = sandbox::store(Store::loki(root, "tester").unwrap());
    let target = store.locate(&id).unwrap();
    store.activate_context(&target, &parent).unwrap();
    check_undone(&memory, &parent, &before, &session_before);
    assert_eq!(message_ids(&memory, &parent), all_messages);
    let shown = json(root, &["show", &id, "--json"]);
    assert_eq!(
        shown["messages"].as_array().unwrap().len(),
        all_messages.len()
    );

    // A context that cannot be read is never made active.
    let broken = memory.join("broken.json");
    std::fs::write(&broken, "{").unwrap();
    assert!(store.activate_context(&target, "broken").is_err());
    assert!(store.activate_context(&target, "missing").is_err());
    assert_eq!(active_id(&memory), parent);

    // And the trim can be redone the same way.
    store.activate_context(&target, &child).unwrap();
    assert_eq!(message_ids(&memory, &active_id(&memory)), kept);
}

#[test]
fn the_viewer_switches_back_on_disk() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let (id, memory, parent, _) = trimmed_session(root);
    let all_messages = message_ids(&memory, &parent);
    let before = snapshot(&memory);
    let session_before = read_json(&memory.join("session.json"));
    let settings = ui_settings(StoreKind::Loki);
    let cache = tempfile::tempdir().unwrap();
    let source = Store::loki(root, "tester")
        .unwrap()
        .with_cache_dir(cache.path());
    let mut ui = Headless::open(source, settings, 100, 30, 1.8e9, || 1.8e9);
    assert_eq!(ui.model.list.selected_row().unwrap().record.id, id);
    ui.press(KeyCode::Tab, KeyModifiers::NONE);
    assert!(matches!(ui.model.screen, Screen::Viewer(_)));
    ui.press(KeyCode::Char('c'), KeyModifiers::NONE);
    let viewer = ui.model.viewer().unwrap();
    let ViewerMode::Contexts(view) = &viewer.mode else {
        panic!("the contexts list is open")
    };
    let contexts = view.list.as_ref().expect("the contexts were read");
    let target = contexts.iter().position(|c| c.id == parent).unwrap();
    let cursor = view.cursor;
    let key = if target < cursor {
        KeyCode::Up
    } else {
        KeyCode::Down
    };
    for _ in 0..cursor.abs_diff(target) {
        ui.press(key, KeyModifiers::NONE);
    }
    ui.press(KeyCode::Enter, KeyModifiers::NONE);
    check_undone(&memory, &parent, &before, &session_before);
    let shown = ui.model.viewer().unwrap().loaded.as_ref().unwrap();
    assert_eq!(
        shown.context.id(),
        parent,
        "the viewer shows the parent again"
    );
    assert_eq!(shown.len(), all_messages.len());
}
