//! A `SESSION` given as a path resolves by the listing's rules: a session
//! directory (or its `memory/`) that is a symbolic link is not entered,
//! whatever path form names it, so no command reads or writes where the
//! link points. A link higher up (the root itself) is the user's choice
//! and is followed, as the listing follows it.

use super::{copy_tree, corpus, run};
use crate::common::*;
use std::path::{Path, PathBuf};

/// A store holding a link `linked` to a readable session outside it, and
/// that session's files before anything ran.
struct Linked {
    tmp: tempfile::TempDir,
    root: PathBuf,
    elsewhere: PathBuf,
}

impl Linked {
    fn new() -> Linked {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("store");
        new_session(&root, "a healthy neighbour");
        let outside = tmp.path().join("outside");
        copy_tree(&corpus().join("context-string-content"), &outside);
        let elsewhere = outside.join("s");
        std::os::unix::fs::symlink(&elsewhere, sessions(&root).join("linked")).unwrap();
        Linked {
            tmp,
            root,
            elsewhere,
        }
    }
}

/// Every path form of a linked session is refused (exit 2, naming the
/// link), by every command, and nothing where it points changes.
#[test]
fn a_linked_session_directory_is_never_entered_by_path() {
    let l = Linked::new();
    let before = snapshot(&l.elsewhere);
    let link = sessions(&l.root).join("linked");
    let forms: Vec<PathBuf> = vec![
        link.clone(),
        link.join("memory"),
        link.join(""),
        link.join("memory/."),
    ];
    for form in &forms {
        let arg = form.to_str().unwrap();
        for args in [
            vec!["trim", arg, "--keep-messages", "1"],
            vec!["trim", arg, "--keep-messages", "1", "--dry-run"],
            vec!["trim", arg, "--drop", "m1"],
            vec!["resume", arg],
            vec!["show", arg],
            vec!["contexts", arg],
        ] {
            let out = run(&l.root, &args);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(
                stderr.contains("symbolic link") && stderr.contains(link.to_str().unwrap()),
                "{args:?}: {stderr}"
            );
            assert_eq!(
                snapshot(&l.elsewhere),
                before,
                "{args:?} wrote through the link"
            );
        }
    }
    // The same from inside the folder, by a relative path.
    let mut command = command();
    command
        .current_dir(sessions(&l.root))
        .env("XDG_CACHE_HOME", l.root.with_extension("cache"))
        .arg("--root")
        .arg(&l.root)
        .args([
            "--user",
            "tester",
            "trim",
            "./linked",
            "--keep-messages",
            "1",
        ]);
    let (out, _) = run_with_deadline(command, DEADLINE, "trim ./linked");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(snapshot(&l.elsewhere), before);
}

/// The same in a folder of bare peteos sessions.
#[test]
fn a_linked_peteos_session_is_never_entered_by_path() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("peteos");
    copy_tree(
        &corpus().join("context-string-content/s/memory"),
        &folder.join("real"),
    );
    let elsewhere = tmp.path().join("elsewhere");
    copy_tree(
        &corpus().join("context-string-content/s/memory"),
        &elsewhere,
    );
    std::os::unix::fs::symlink(&elsewhere, folder.join("linked")).unwrap();
    let before = snapshot(&elsewhere);
    let link = folder.join("linked");
    let mut command = command();
    command
        .env("XDG_CACHE_HOME", tmp.path().join("cache"))
        .arg("--peteos")
        .arg(&folder)
        .args(["trim", link.to_str().unwrap(), "--keep-messages", "1"]);
    let (out, _) = run_with_deadline(command, DEADLINE, "trim a linked peteos session");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("symbolic link"), "{stderr}");
    assert_eq!(snapshot(&elsewhere), before);
}

/// A root reached through a link is the user's: paths through it work.
#[test]
fn a_link_above_the_session_folder_is_followed() {
    let l = Linked::new();
    let id = new_session(&l.root, "reached through a linked root");
    let via = l.tmp.path().join("via");
    std::os::unix::fs::symlink(&l.root, &via).unwrap();
    let path = sessions(&via).join(&id);
    let out = run(&l.root, &["show", path.to_str().unwrap(), "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shown: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(shown["session"]["id"], id.as_str(), "{shown}");
    let memory = path.join("memory");
    assert!(Path::new(&memory).is_dir());
    let out = run(&l.root, &["show", memory.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0));
}
