//! Deleting a session from the list through the UI's real loop on a
//! temporary store: the store is asked first, so a session an agent has
//! open is refused with the reason and nothing is asked; the question shows
//! the size the deletion then frees.

use crate::common::*;
use crossterm::event::{KeyCode, KeyModifiers};
use loki_sessions::store::{Store, StoreKind};
use loki_sessions::tui::headless::Headless;
use loki_sessions::tui::model::Overlay;

/// The UI on a store of three sessions, the first of which an agent has
/// open (`is_active`); the ids, most recent first.
fn three_one_active(root: &std::path::Path) -> (Headless, Vec<String>) {
    for prompt in [
        "write the release notes",
        "refactor the parser",
        "fix the login bug",
    ] {
        new_session(root, prompt);
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let ids: Vec<String> = json(root, &["list", "--json"])
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    let session_json = sessions(root).join(&ids[0]).join("memory/session.json");
    let mut doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&session_json).unwrap()).unwrap();
    doc["is_active"] = true.into();
    std::fs::write(&session_json, serde_json::to_vec(&doc).unwrap()).unwrap();
    let store = Store::loki(root, "tester")
        .unwrap()
        .with_cache_dir(&root.join("cache"));
    let ui = Headless::open(store, ui_settings(StoreKind::Loki), 100, 30, 1.8e9, || {
        1.8e9
    });
    (ui, ids)
}

#[test]
fn a_session_an_agent_has_open_is_refused_before_any_question() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut ui, ids) = three_one_active(tmp.path());
    assert_eq!(ui.model.list.selected_row().unwrap().record.id, ids[0]);
    ui.press(KeyCode::F(8), KeyModifiers::NONE);
    assert!(
        ui.model.app.overlay.is_none(),
        "asked although it would refuse"
    );
    let status = ui.model.app.status.clone().unwrap();
    assert!(
        status.is_error && status.text.contains("cannot be deleted: active"),
        "{status:?}"
    );
    assert!(sessions(tmp.path()).join(&ids[0]).is_dir());
}

/// The bytes of every regular file under `dir`, walked here (links not
/// followed), as a person would add them up.
fn file_bytes(dir: &std::path::Path) -> u64 {
    let mut total = 0;
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let meta = entry.path().symlink_metadata().unwrap();
        if meta.is_dir() {
            total += file_bytes(&entry.path());
        } else if meta.is_file() {
            total += meta.len();
        }
    }
    total
}

/// `bytes` as the UI words a size: "812 B", "3.4 KiB", "12 KiB".
fn worded(bytes: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB"];
    let (mut value, mut unit) = (bytes as f64, 0);
    while value >= 1024.0 && unit + 1 < units.len() {
        value /= 1024.0;
        unit += 1;
    }
    match unit {
        0 => format!("{bytes} B"),
        _ if value < 10.0 => format!("{value:.1} {}", units[unit]),
        _ => format!("{value:.0} {}", units[unit]),
    }
}

#[test]
fn the_size_asked_about_is_the_size_freed() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut ui, ids) = three_one_active(tmp.path());
    ui.press(KeyCode::Down, KeyModifiers::NONE);
    ui.press(KeyCode::F(8), KeyModifiers::NONE);
    let Some(Overlay::Confirm(question)) = ui.model.app.overlay.clone() else {
        panic!("a question: {}", ui.screen())
    };
    let size = question
        .lines
        .iter()
        .find_map(|l| l.strip_prefix("size  "))
        .and_then(|l| l.split(',').next())
        .expect("the question shows a size")
        .to_string();
    assert_eq!(
        size,
        worded(file_bytes(&sessions(tmp.path()).join(&ids[1])))
    );
    ui.press(KeyCode::Char('y'), KeyModifiers::NONE);
    let status = ui.model.app.status.clone().unwrap();
    assert_eq!(status.text, format!("removed 1 session, freed {size}"));
    assert!(!sessions(tmp.path()).join(&ids[1]).exists());
}
