//! Isolation: what we create is private to the user (directories 0700,
//! files 0600), and rewriting a file keeps the mode it had.

use crate::common::*;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o777
}

#[test]
fn new_sessions_forks_and_imports_are_private() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("store");
    ok(
        &root,
        &[
            "demo",
            "--sessions",
            "2",
            "--messages",
            "12",
            "--big-context",
            "0",
            "--plain",
        ],
    );
    let id = new_session(&root, "private");
    let dir = sessions(&root).join(&id);
    for d in [
        root.join("users/tester"),
        sessions(&root),
        dir.clone(),
        dir.join("workspace"),
        dir.join("memory"),
        dir.join("cache"),
    ] {
        assert_eq!(mode(&d), 0o700, "{}", d.display());
    }
    for entry in std::fs::read_dir(dir.join("memory")).unwrap() {
        assert_eq!(mode(&entry.unwrap().path()), 0o600);
    }
    assert_eq!(mode(&dir.join("meta.json")), 0o600);

    // A trim writes its new context 0600 and keeps the parent's own mode.
    let demo_id = json(&root, &["list", "--json"])
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] != id.as_str())
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let memory = sessions(&root).join(&demo_id).join("memory");
    let session: serde_json::Value =
        serde_json::from_slice(&std::fs::read(memory.join("session.json")).unwrap()).unwrap();
    let parent = memory.join(format!(
        "{}.json",
        session["active_context_id"].as_str().unwrap()
    ));
    std::fs::set_permissions(&parent, std::fs::Permissions::from_mode(0o640)).unwrap();
    let done = json(&root, &["trim", &demo_id, "--keep-messages", "2", "--json"]);
    let child = memory.join(format!("{}.json", done["new_context_id"].as_str().unwrap()));
    assert_eq!(mode(&child), 0o600);
    assert_eq!(mode(&parent), 0o640, "a rewrite keeps the file's mode");

    // An imported session is private too.
    // (The source is a session of this tree: only --again copies it.)
    let imported = ok(&root, &["import", memory.to_str().unwrap(), "--again"]);
    let new_dir = sessions(&root).join(imported.trim());
    assert_eq!(mode(&new_dir), 0o700);
    assert_eq!(mode(&new_dir.join("memory/session.json")), 0o600);
    assert_eq!(mode(&new_dir.join("meta.json")), 0o600);
}
