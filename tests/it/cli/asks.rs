//! What a person at a terminal sees: `new` asks before it purges, `delete`
//! asks before it deletes. The binary runs on a pseudo-terminal (a small
//! Python driver, tests/pty_run.py) that answers the question.

use crate::common::*;
use std::path::Path;
use std::process::Command;

/// Runs the binary on a terminal, answering its y/N question with `answer`.
fn on_a_terminal(root: &Path, answer: &str, args: &[&str]) -> (i32, String) {
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pty_run.py");
    let out = Command::new("python3")
        .in_sandbox()
        .arg(driver)
        .arg(answer)
        .arg("--")
        .arg(bin())
        .arg("--root")
        .arg(root)
        .args(["--user", "tester"])
        .args(args)
        .output()
        .expect("python3 runs the terminal driver");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.code().unwrap_or(-1), text)
}

/// A store of 30 sessions, most of them stale for a keep of 5.
fn store() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("store");
    std::fs::create_dir(&root).unwrap();
    ok(
        &root,
        &[
            "demo",
            "--sessions",
            "30",
            "--messages",
            "4",
            "--big-context",
            "0",
            "--plain",
        ],
    );
    (tmp, root)
}

fn count(root: &Path) -> usize {
    std::fs::read_dir(sessions(root)).unwrap().count()
}

#[test]
fn new_on_a_terminal_asks_and_no_keeps_every_session() {
    let (_tmp, root) = store();
    let (code, text) = on_a_terminal(&root, "n", &["new", "Fix flaky login test", "--keep", "5"]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("would be removed") && text.contains("[y/N]"),
        "{text}"
    );
    assert!(text.contains("nothing purged"), "{text}");
    assert_eq!(count(&root), 31, "every session kept, the new one made");
}

#[test]
fn new_on_a_terminal_answered_yes_purges_first() {
    let (_tmp, root) = store();
    let (code, text) = on_a_terminal(&root, "y", &["new", "Fix flaky login test", "--keep", "5"]);
    assert_eq!(code, 0, "{text}");
    assert_eq!(count(&root), 6, "five kept, the new one made: {text}");
}

#[test]
fn new_in_a_script_purges_nothing_without_yes_and_says_how() {
    let (_tmp, root) = store();
    ok(&root, &["new", "scripted", "--no-purge", "--keep", "5"]);
    assert_eq!(count(&root), 31);
    let out = run(&root, &["new", "scripted", "--keep", "5"]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(count(&root), 32, "no terminal, no --yes: nothing deleted");
    assert!(
        stderr.contains("left 26 stale sessions")
            && stderr.contains("loki-sessions purge --keep 5 --yes"),
        "{stderr}"
    );
    ok(&root, &["new", "scripted", "--keep", "5", "--yes"]);
    assert_eq!(count(&root), 6, "--yes purges as the seed's start does");
    ok(&root, &["new", "scripted", "--keep", "1", "--purge"]);
    assert_eq!(count(&root), 2, "--purge is the same as --yes");
}

#[test]
fn delete_asks_on_a_terminal_and_needs_yes_in_a_script() {
    let (_tmp, root) = store();
    let listed = json(&root, &["list", "--json"]);
    let id = listed[0]["id"].as_str().unwrap().to_string();
    let (code, text) = on_a_terminal(&root, "n", &["delete", &id]);
    assert_eq!(code, 1, "{text}");
    assert!(sessions(&root).join(&id).is_dir());
    let out = run(&root, &["delete", &id]);
    assert_eq!(out.status.code(), Some(2), "no terminal, no --yes");
    assert!(sessions(&root).join(&id).is_dir());
    let (code, text) = on_a_terminal(&root, "y", &["delete", &id]);
    assert_eq!(code, 0, "{text}");
    assert!(!sessions(&root).join(&id).exists());
}

#[test]
fn delete_says_why_before_asking_and_frees_the_size_it_showed() {
    let (_tmp, root) = store();
    let listed = json(&root, &["list", "--json"]);
    let id = listed[0]["id"].as_str().unwrap().to_string();
    // An agent has it open: refused at once with the reason, nothing asked.
    let session_json = sessions(&root).join(&id).join("memory/session.json");
    let original = std::fs::read(&session_json).unwrap();
    let mut doc: serde_json::Value = serde_json::from_slice(&original).unwrap();
    doc["is_active"] = true.into();
    std::fs::write(&session_json, serde_json::to_vec(&doc).unwrap()).unwrap();
    let (code, text) = on_a_terminal(&root, "y", &["delete", &id]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("cannot be deleted: active"), "{text}");
    assert!(!text.contains("[y/N]"), "it must not ask first: {text}");
    assert!(sessions(&root).join(&id).is_dir());
    std::fs::write(&session_json, &original).unwrap();
    // The size asked about is the size freed.
    let (code, text) = on_a_terminal(&root, "y", &["delete", &id]);
    assert_eq!(code, 0, "{text}");
    let asked = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("size"))
        .and_then(|l| l.trim().split(',').next())
        .expect("the question shows a size")
        .to_string();
    assert!(
        text.contains(&format!("freed {asked}")),
        "{asked} vs {text}"
    );
}
