//! Deleting another agent's session is recoverable: `delete` moves it,
//! with its subagents' files and side folders, into our trash; `trash`
//! lists it; `restore` puts back every byte and time; `trash --empty`
//! deletes for good. A session its agent may be writing is refused.

use super::Home;
use serde_json::Value;
use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Every file and folder under `dir`: bytes (folders: none) and mtime.
pub(super) fn state(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, i64, i64)> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let m = std::fs::symlink_metadata(e.path()).unwrap();
            let bytes = if m.is_dir() {
                todo.push(e.path());
                Vec::new()
            } else {
                std::fs::read(e.path()).unwrap()
            };
            let mtime = if m.is_dir() { 0 } else { m.mtime() };
            let nsec = if m.is_dir() { 0 } else { m.mtime_nsec() };
            out.insert(e.path(), (bytes, mtime, nsec));
        }
    }
    out
}

/// Makes every file under `dir` look a day old (the fixtures were just written).
pub(super) fn age_files(dir: &Path) {
    let old = SystemTime::now() - Duration::from_secs(86_400);
    for (path, _) in state(dir) {
        if path.is_file() {
            let f = std::fs::File::options().append(true).open(&path).unwrap();
            f.set_modified(old).unwrap();
        }
    }
}

fn listed(h: &Home, id: &str) -> bool {
    let list = h.json(&["list", "--json"]);
    list.as_array().unwrap().iter().any(|r| r["id"] == id)
}

#[test]
fn a_deleted_session_goes_to_the_trash_whole_and_comes_back_exactly() {
    let h = Home::new();
    age_files(&h.home);
    let before = state(&h.home);
    let with_subagents = h.made.claude_with_subagents.clone().unwrap();
    let ids = [
        with_subagents.as_str(),
        h.made.codex[0].as_str(),
        h.made.gemini[0].as_str(),
        h.made.qwen[0].as_str(),
        h.made.cursor[0].as_str(),
        h.made.copilot[0].as_str(),
    ];
    for id in ids {
        let done = h.json(&["delete", id, "--yes", "--json"]);
        assert_eq!(done["trashed"], true, "{done}");
        assert!(!listed(&h, id), "{id} left the list");
    }
    // The session with subagents took its side folder and older files along.
    let gone: Vec<&PathBuf> = before
        .keys()
        .filter(|p| !state(&h.home).contains_key(*p))
        .collect();
    assert!(gone.iter().any(|p| p.ends_with("subagents")), "{gone:?}");
    // The Cursor transcript took its subagents' folder along.
    let cursor_subagents = format!("{}/subagents", h.made.cursor[0]);
    assert!(
        gone.iter().any(|p| p.ends_with(&cursor_subagents)),
        "{gone:?}"
    );
    // The Copilot CLI session took its whole folder's files along.
    for beside in ["workspace.yaml", "plan.md", "checkpoints"] {
        let copilot = format!("{}/{beside}", h.made.copilot[0]);
        assert!(gone.iter().any(|p| p.ends_with(&copilot)), "{gone:?}");
    }
    assert!(
        gone.iter().any(|p| p
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("agent-")
            && !p.to_string_lossy().contains("/subagents/")),
        "an older subagent file went along: {gone:?}"
    );
    let trash = h.json(&["trash", "--json"]);
    let trashed: Vec<&str> = trash
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert_eq!(trashed.len(), ids.len());
    for id in ids {
        assert!(trashed.contains(&id));
    }
    let entry = trash
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == with_subagents)
        .unwrap();
    assert!(entry["from"].as_array().unwrap().len() >= 2, "{entry}");
    // Restored: every byte and modification time as it was.
    for id in ids {
        h.ok(&["restore", &id[..8]]);
        assert!(listed(&h, id));
    }
    assert_eq!(state(&h.home), before);
    let out = h.run(&["trash"]);
    assert_eq!(out.status.code(), Some(1), "the trash is empty again");
}

#[test]
fn a_session_open_in_a_process_is_not_deleted_and_one_changed_moments_ago_is() {
    let h = Home::new();
    age_files(&h.home);
    let id = h.made.claude[0].clone();
    let list = h.json(&["list", "--json"]);
    let path = PathBuf::from(
        list.as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id.as_str())
            .unwrap()["path"]
            .as_str()
            .unwrap(),
    );
    // Open in a running process (an agent with the file open).
    let mut holder = std::process::Command::new("sh")
        .arg("-c")
        .arg("exec 3<\"$1\"; exec sleep 30")
        .arg("sh")
        .arg(&path)
        .spawn()
        .unwrap();
    // Until the shell has opened it: its fd 3 names the file.
    let fd = PathBuf::from(format!("/proc/{}/fd/3", holder.id()));
    for _ in 0..200 {
        if std::fs::read_link(&fd).is_ok_and(|p| p == path) {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let before = state(&h.home);
    let out = h.run(&["delete", &id, "--yes"]);
    holder.kill().unwrap();
    holder.wait().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("process {}", holder.id())), "{err}");
    assert_eq!(state(&h.home), before);
    // Changed a moment ago but open nowhere: a person naming it may delete
    // it (a purge would spare it), and is told why that is safe.
    let f = std::fs::File::options().append(true).open(&path).unwrap();
    f.set_modified(SystemTime::now()).unwrap();
    drop(f);
    let plan = h.json(&[
        "purge",
        "--agent",
        "claude",
        "--keep",
        "0",
        "--max-age",
        "0d",
        "--dry-run",
        "--json",
    ]);
    assert!(
        plan["keep"].as_array().unwrap().iter().any(
            |r| r["id"] == id.as_str() && r["reason"].as_str().unwrap().contains("seconds ago")
        ),
        "{plan}"
    );
    let out = h.run(&["delete", &id, "--yes"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!listed(&h, &id));
    h.ok(&["restore", &id]);
    assert!(listed(&h, &id));
}

#[test]
fn emptying_the_trash_deletes_for_good_only_what_is_old_enough() {
    let h = Home::new();
    age_files(&h.home);
    let id = h.made.codex[1].clone();
    h.ok(&["delete", &id, "--yes"]);
    let out = h.run(&["trash", "--empty", "--older-than", "1d", "--yes"]);
    assert_eq!(out.status.code(), Some(1), "nothing old enough");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("nothing in the trash was trashed over 1 day ago (1 session there is newer)"),
        "{said}"
    );
    let gone: Value = h.json(&["trash", "--empty", "--yes", "--json"]);
    assert_eq!(gone["deleted"][0]["id"], id.as_str());
    assert!(gone["bytes_freed"].as_u64().unwrap() > 0);
    assert_eq!(h.json(&["trash", "--json"]), Value::Array(Vec::new()));
    let out = h.run(&["restore", &id]);
    assert_ne!(out.status.code(), Some(0));
    assert!(!listed(&h, &id));
}
