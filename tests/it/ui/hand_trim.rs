//! Trimming by hand through the UI's real loop (keymap, update, worker) on
//! a temporary store: marked messages leave the new active fork with the
//! other halves of their tool pairs, the parent keeps every message, the
//! contexts list undoes it; an export lands where it was asked to and
//! replaces a file only after a yes.

use crate::common::*;
use crossterm::event::{KeyCode, KeyModifiers};
use loki_sessions::store::{Store, StoreKind};
use loki_sessions::tui::headless::Headless;
use loki_sessions::tui::model::Overlay;
use serde_json::Value;
use std::path::Path;

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn active_id(memory: &Path) -> String {
    read_json(&memory.join("session.json"))["active_context_id"]
        .as_str()
        .unwrap()
        .to_string()
}

fn ids(context: &Value) -> Vec<String> {
    context["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect()
}

/// A store of a few sessions, and the UI open on it with the most recent
/// session's viewer showing; its id and memory folder.
fn viewer_on_a_session(root: &Path) -> (Headless, String, std::path::PathBuf) {
    viewer_after(root, |_| {})
}

/// [`viewer_on_a_session`], with `prepare` given the session's memory folder
/// before the UI opens.
fn viewer_after(
    root: &Path,
    prepare: impl FnOnce(&Path),
) -> (Headless, String, std::path::PathBuf) {
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
    prepare(&memory);
    let settings = ui_settings(StoreKind::Loki);
    let source = Store::loki(root, "tester")
        .unwrap()
        .with_cache_dir(&root.join("cache"));
    let mut ui = Headless::open(source, settings, 100, 30, 1.8e9, || 1.8e9);
    assert_eq!(ui.model.list.selected_row().unwrap().record.id, id);
    ui.press(KeyCode::Tab, KeyModifiers::NONE);
    assert!(ui.model.viewer().unwrap().breakdown.is_some(), "counted");
    (ui, id, memory)
}

/// Selects message `index` with the keys a person would press.
fn go_to(ui: &mut Headless, index: usize) {
    ui.press(KeyCode::Home, KeyModifiers::NONE);
    for _ in 0..index {
        ui.press(KeyCode::Down, KeyModifiers::NONE);
    }
    assert_eq!(ui.model.viewer().unwrap().selected, index);
}

#[test]
fn marked_messages_leave_the_fork_with_their_pairs_and_the_contexts_undo_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut ui, _, memory) = viewer_on_a_session(tmp.path());
    let parent_id = active_id(&memory);
    let parent_file = memory.join(format!("{parent_id}.json"));
    let parent_before = read_json(&parent_file);
    let messages = parent_before["messages"].as_array().unwrap().clone();
    // A tool call (its results go with it) and a user's message.
    let call = messages
        .iter()
        .position(|m| m["content"][0]["type"] == "tool_use")
        .expect("the demo session calls a tool");
    let call_id = &messages[call]["content"][0]["call_id"];
    let results: Vec<usize> = (0..messages.len())
        .filter(|&i| {
            messages[i]["content"].as_array().is_some_and(|parts| {
                parts
                    .iter()
                    .any(|p| p["call_id"] == *call_id && p["type"] == "tool_result")
            })
        })
        .collect();
    assert!(!results.is_empty());
    let text = (2..messages.len())
        .rev()
        .find(|&i| messages[i]["role"] == "user" && messages[i]["content"][0]["type"] == "text")
        .unwrap();

    go_to(&mut ui, call);
    ui.press(KeyCode::Char(' '), KeyModifiers::NONE);
    go_to(&mut ui, text);
    ui.press(KeyCode::Char(' '), KeyModifiers::NONE);
    let screen = ui.screen();
    assert!(screen.contains("Drop: 2 marked"), "{screen}");
    assert_eq!(
        active_id(&memory),
        parent_id,
        "nothing is written before Enter"
    );
    ui.press(KeyCode::Enter, KeyModifiers::NONE);

    let gone: Vec<usize> = {
        let mut v = vec![call, text];
        v.extend(&results);
        v.sort();
        v
    };
    let screen = ui.screen();
    assert!(
        screen.contains(&format!("dropped {} messages", gone.len())),
        "{screen}"
    );
    assert!(screen.contains("c switches back"), "{screen}");
    let child_id = active_id(&memory);
    assert_ne!(child_id, parent_id);
    let child = read_json(&memory.join(format!("{child_id}.json")));
    let want: Vec<String> = ids(&parent_before)
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !gone.contains(i))
        .map(|(_, id)| id)
        .collect();
    assert_eq!(
        ids(&child),
        want,
        "exactly the marks and their pairs are gone"
    );
    assert_eq!(child["origin_context_id"], parent_id.as_str());
    // The parent is as it was, but for knowing its child.
    let mut parent_after = read_json(&parent_file);
    assert_eq!(parent_after["children"], serde_json::json!([child_id]));
    parent_after["children"] = parent_before["children"].clone();
    assert_eq!(parent_after, parent_before, "the parent is unchanged");
    // The viewer shows the fork.
    let shown = ui.model.viewer().unwrap().loaded.as_ref().unwrap();
    assert_eq!(shown.context.id(), child_id);

    // The contexts list switches back: the undo.
    ui.press(KeyCode::Char('c'), KeyModifiers::NONE);
    ui.press(KeyCode::Up, KeyModifiers::NONE);
    ui.press(KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(active_id(&memory), parent_id);
    assert_eq!(
        read_json(&parent_file)["messages"],
        parent_before["messages"]
    );
    let shown = ui.model.viewer().unwrap().loaded.as_ref().unwrap();
    assert_eq!(shown.len(), messages.len());
}

#[test]
fn a_drop_the_write_would_refuse_is_refused_on_screen_before_enter() {
    let tmp = tempfile::tempdir().unwrap();
    // Anchors that end before the last message (as in the hostile corpus):
    // readable, but no fork keeping that message can be laid out.
    let (mut ui, _, memory) = viewer_after(tmp.path(), |memory| {
        let file = memory.join(format!("{}.json", active_id(memory)));
        let mut context = read_json(&file);
        let anchors = context["anchor_points"].as_array_mut().unwrap();
        let last = anchors.last_mut().unwrap();
        last[1] = (last[1].as_u64().unwrap() - 1).into();
        std::fs::write(&file, serde_json::to_vec(&context).unwrap()).unwrap();
    });
    let before = snapshot(&memory);
    go_to(&mut ui, 3);
    ui.press(KeyCode::Char(' '), KeyModifiers::NONE);
    let screen = ui.screen();
    assert!(screen.contains("beyond every anchor point"), "{screen}");
    ui.press(KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(snapshot(&memory), before, "nothing written");
    // A window trim says so too, before its Enter.
    ui.press(KeyCode::Esc, KeyModifiers::NONE);
    ui.press(KeyCode::Char('t'), KeyModifiers::NONE);
    let screen = ui.screen();
    assert!(screen.contains("beyond every anchor point"), "{screen}");
    ui.press(KeyCode::Enter, KeyModifiers::NONE);
    let screen = ui.screen();
    assert!(
        screen.contains("beyond every anchor point") && !screen.contains("still counting"),
        "Enter repeats why: {screen}"
    );
    assert_eq!(snapshot(&memory), before, "nothing written");
}

#[test]
fn an_export_is_written_where_asked_and_replaced_only_after_yes() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut ui, id, memory) = viewer_on_a_session(tmp.path());
    let out = tempfile::tempdir().unwrap();
    let file = out.path().join("context.json");
    let export = |ui: &mut Headless| {
        ui.press(KeyCode::Char('x'), KeyModifiers::NONE);
        ui.press(KeyCode::Char('u'), KeyModifiers::CONTROL);
        ui.type_text(&file.display().to_string());
        ui.press(KeyCode::Enter, KeyModifiers::NONE);
    };
    export(&mut ui);
    let written = read_json(&file);
    assert_eq!(written["session"], id.as_str());
    assert_eq!(written["context_id"], active_id(&memory).as_str());
    assert!(
        ui.screen()
            .contains(&format!("exported the context to {}", file.display())),
        "{}",
        ui.screen()
    );
    // Again: the file exists, so the person is asked; No keeps it.
    std::fs::write(&file, "mine").unwrap();
    export(&mut ui);
    assert!(matches!(ui.model.app.overlay, Some(Overlay::Confirm(_))));
    ui.press(KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
    export(&mut ui);
    ui.press(KeyCode::Char('y'), KeyModifiers::NONE);
    assert_eq!(
        read_json(&file)["session"],
        id.as_str(),
        "replaced after yes"
    );
    // Never inside the session tree.
    let inside = memory.join("notes.md");
    ui.press(KeyCode::Char('x'), KeyModifiers::NONE);
    ui.press(KeyCode::Char('u'), KeyModifiers::CONTROL);
    ui.type_text(&inside.display().to_string());
    ui.press(KeyCode::Enter, KeyModifiers::NONE);
    assert!(!inside.exists());
    let status = ui.model.app.status.clone().unwrap();
    assert!(
        status.is_error && status.text.contains("inside the session tree"),
        "{status:?}"
    );
}
