//! Clear answers from the CLI: mistakes are errors naming the path,
//! sessions are found by name, one size everywhere, contexts can be
//! managed, an import happens once.

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A demo store of `sessions` plain sessions of about `messages` messages.
fn demo_store(root: &Path, sessions: usize, messages: usize) {
    let (sessions, messages) = (sessions.to_string(), messages.to_string());
    ok(
        root,
        &[
            "demo",
            "--sessions",
            &sessions,
            "--messages",
            &messages,
            "--big-context",
            "0",
            "--plain",
        ],
    );
}

fn first_id(root: &Path) -> String {
    json(root, &["list", "--json"])[0]["id"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn a_missing_root_is_an_error_naming_it_and_an_empty_store_is_not() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("no-such-home");
    for args in [&["list"][..], &["list", "--json"], &["purge", "--dry-run"]] {
        let out = run(&missing, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(missing.to_str().unwrap()),
            "{}",
            stderr(&out)
        );
        assert!(stderr(&out).contains("--root"), "says where it came from");
        assert!(
            stdout(&out).is_empty(),
            "nothing on stdout: {}",
            stdout(&out)
        );
    }
    let out = run(&missing, &["show", "anything"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // LOKI_HOME is named when the root came from it.
    let out = command()
        .env("LOKI_HOME", &missing)
        .args(["--user", "tester", "list"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("LOKI_HOME"), "{}", stderr(&out));
    // An existing, empty store: an empty result, saying where it looked.
    let out = run(tmp.path(), &["list", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "[]");
    let looked = sessions(tmp.path());
    assert!(
        stderr(&out).contains(looked.to_str().unwrap()),
        "{}",
        stderr(&out)
    );
    let out = run(tmp.path(), &["list"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).is_empty(), "no empty table: {}", stdout(&out));
    // A peteos folder that is not there.
    let out = command()
        .arg("--peteos")
        .arg(&missing)
        .arg("list")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--peteos"), "{}", stderr(&out));
}

#[test]
fn a_user_without_a_folder_is_told_which_users_there_are() {
    let tmp = tempfile::tempdir().unwrap();
    new_session(tmp.path(), "something");
    std::fs::create_dir_all(tmp.path().join("users/ann/session")).unwrap();
    let out = command()
        .arg("--root")
        .arg(tmp.path())
        .args(["--user", "bob", "list", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("ann, tester") && err.contains("--user") && err.contains("bob"),
        "{err}"
    );
    assert!(stdout(&out).is_empty());
}

#[test]
fn a_config_file_given_must_exist_the_default_may_not() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("missing.toml");
    let out = run(
        tmp.path(),
        &["--config", missing.to_str().unwrap(), "list", "--json"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(missing.to_str().unwrap()),
        "{}",
        stderr(&out)
    );
    let empty = tmp.path().join("empty.toml");
    std::fs::write(&empty, "").unwrap();
    ok(tmp.path(), &["--config", empty.to_str().unwrap(), "list"]);
    // The default location (XDG_CONFIG_HOME, see common::command) is absent.
    ok(tmp.path(), &["list"]);
}

#[test]
fn an_unknown_encoding_is_refused_with_the_valid_names() {
    let tmp = tempfile::tempdir().unwrap();
    let id = new_session(tmp.path(), "encode me");
    for args in [
        vec!["--encoding", "gpt2"],
        vec!["list", "--tokens", "--encoding", "gpt2"],
        vec!["show", &id, "--encoding", "gpt2"],
        vec!["trim", &id, "--keep-messages", "1", "--encoding", "gpt2"],
        vec!["contexts", &id, "--tokens", "--encoding", "gpt2"],
    ] {
        let out = run(tmp.path(), &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.contains("cl100k_base") && err.contains("o200k_base"),
            "{err}"
        );
    }
    let help = ok(tmp.path(), &["show", "--help"]);
    assert!(
        help.contains("possible values") && help.contains("o200k_base"),
        "{help}"
    );
}

#[test]
fn sessions_are_found_by_id_prefix_path_name_and_name_prefix() {
    let tmp = tempfile::tempdir().unwrap();
    let login = new_session(tmp.path(), "Fix the login bug");
    let logout = new_session(tmp.path(), "Fix the logout bug");
    let tokyo = new_session(tmp.path(), "東京 データ");
    let found = |arg: &str| {
        ok(tmp.path(), &["resume", arg, "--print", "id"])
            .trim()
            .to_string()
    };
    assert_eq!(found(&login), login, "the id");
    assert_eq!(found(&login[..20]), login, "a unique id prefix");
    let path = sessions(tmp.path()).join(&logout);
    assert_eq!(found(path.to_str().unwrap()), logout, "a path");
    assert_eq!(found("fix-the-login-bug"), login, "the exact name");
    assert_eq!(found("Fix the login bug"), login, "the first prompt");
    assert_eq!(found("fix-the-logo"), logout, "a unique name prefix");
    assert_eq!(found("東京"), tokyo, "a unique name prefix, CJK");
    // Ambiguous: every candidate is listed with its name, last use and id.
    let out = run(tmp.path(), &["show", "fix-the-log"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    for (name, id) in [
        ("fix-the-login-bug", &login),
        ("fix-the-logout-bug", &logout),
    ] {
        let line = err
            .lines()
            .find(|l| l.contains(id.as_str()))
            .unwrap_or_else(|| panic!("{id} not listed: {err}"));
        assert!(line.contains(name) && line.contains("just now"), "{line}");
    }
    assert!(err.contains("matches 2 sessions"), "{err}");
    // Every id starts with the year: a year alone is ambiguous too.
    assert_eq!(
        run(tmp.path(), &["resume", &login[..4]]).status.code(),
        Some(2)
    );
    assert_eq!(
        run(tmp.path(), &["resume", "nothing-like-it"])
            .status
            .code(),
        Some(1)
    );
    // Other subcommands take a name the same way.
    assert_eq!(
        json(tmp.path(), &["show", "fix-the-login-bug", "--json"])["session"]["id"],
        login.as_str()
    );
    assert_eq!(
        json(tmp.path(), &["contexts", "東京", "--json"])["session"],
        tokyo.as_str()
    );
}

/// Apparent bytes of every regular file under `dir`, links not followed.
fn bytes_on_disk(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let meta = std::fs::symlink_metadata(entry.path()).unwrap();
            if meta.is_dir() {
                stack.push(entry.path());
            } else if meta.is_file() {
                total += meta.len();
            }
        }
    }
    total
}

#[test]
fn one_size_everywhere_the_sum_of_the_files_on_disk() {
    let tmp = tempfile::tempdir().unwrap();
    demo_store(tmp.path(), 3, 12);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("big"), vec![7u8; 1 << 20]).unwrap();
    let listed = json(tmp.path(), &["list", "--json"]);
    let mut expected = Vec::new();
    for item in listed.as_array().unwrap() {
        let dir = PathBuf::from(item["path"].as_str().unwrap());
        // A file in the workspace, an empty folder and a link to a big file
        // outside: the link is not followed, the folder weighs nothing.
        std::fs::write(dir.join("workspace/notes.md"), b"hello, world\n").unwrap();
        std::fs::create_dir_all(dir.join("cache/empty")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("big"), dir.join("workspace/big")).unwrap();
        let on_disk = bytes_on_disk(&dir);
        assert!(on_disk > 1000 && on_disk < 1 << 20, "{on_disk}");
        expected.push((item["id"].as_str().unwrap().to_string(), on_disk));
    }
    let listed = json(tmp.path(), &["list", "--json"]);
    let plan = json(
        tmp.path(),
        &[
            "purge",
            "--dry-run",
            "--json",
            "--keep",
            "0",
            "--max-age",
            "10000d",
        ],
    );
    for (id, on_disk) in &expected {
        let item = listed
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["id"] == id.as_str())
            .unwrap();
        assert_eq!(item["bytes"].as_u64(), Some(*on_disk), "list --json, {id}");
        let shown = json(tmp.path(), &["show", id, "--json"]);
        assert_eq!(shown["bytes"].as_u64(), Some(*on_disk), "show --json, {id}");
        let removal = plan["remove"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id.as_str())
            .unwrap();
        assert_eq!(
            removal["bytes"].as_u64(),
            Some(*on_disk),
            "purge plan, {id}"
        );
    }
    let total: u64 = expected.iter().map(|(_, b)| b).sum();
    assert_eq!(plan["bytes_freed"].as_u64(), Some(total));
    let done = json(
        tmp.path(),
        &[
            "purge",
            "--yes",
            "--json",
            "--keep",
            "0",
            "--max-age",
            "10000d",
        ],
    );
    assert_eq!(
        done["bytes_freed"].as_u64(),
        Some(total),
        "the delete report"
    );
    assert!(
        outside.path().join("big").exists(),
        "a link is never followed"
    );
}

#[test]
fn show_full_and_one_message_in_full() {
    let tmp = tempfile::tempdir().unwrap();
    demo_store(tmp.path(), 2, 30);
    let id = first_id(tmp.path());
    let shown = json(tmp.path(), &["show", &id, "--json", "--full"]);
    let messages = shown["messages"].as_array().unwrap();
    for m in messages {
        assert!(
            !m["text"].as_str().unwrap().contains('\n'),
            "text stays one line"
        );
        assert!(m["full_text"].is_string(), "{m}");
    }
    assert!(
        json(tmp.path(), &["show", &id, "--json"])["messages"][0]
            .get("full_text")
            .is_none()
    );
    // The longest message, in full, in the text output.
    let long = messages
        .iter()
        .max_by_key(|m| m["full_text"].as_str().unwrap().len())
        .unwrap();
    let full_text = long["full_text"].as_str().unwrap();
    assert!(full_text.len() > 100, "{full_text}");
    let text = ok(tmp.path(), &["show", &id, "--full"]);
    assert!(text.contains(full_text), "every message in full");
    assert!(
        text.contains("[thinking]") && text.contains("[tool call "),
        "parts labelled"
    );
    // One message by a prefix of its id.
    let message_id = long["id"].as_str().unwrap();
    let one = ok(tmp.path(), &["show", &id, "--message", &message_id[..13]]);
    assert!(one.contains(message_id) && one.contains(full_text), "{one}");
    let one = json(
        tmp.path(),
        &["show", &id, "--message", message_id, "--json"],
    );
    assert_eq!(one["full_text"], full_text);
    assert_eq!(one["index"], long["index"]);
    let out = run(tmp.path(), &["show", &id, "--message", "no-such-message"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}

/// The contexts of `session` as (id, relation), in the order listed.
fn relations(root: &Path, session: &str) -> Vec<(String, String)> {
    json(root, &["contexts", session, "--json"])["contexts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_string(),
                c["relation"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn children_on_disk(memory: &Path, context: &str) -> Vec<String> {
    let raw: Value =
        serde_json::from_slice(&std::fs::read(memory.join(format!("{context}.json"))).unwrap())
            .unwrap();
    raw["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect()
}

fn active_on_disk(memory: &Path) -> String {
    let raw: Value =
        serde_json::from_slice(&std::fs::read(memory.join("session.json")).unwrap()).unwrap();
    raw["active_context_id"].as_str().unwrap().to_string()
}

#[test]
fn contexts_activate_and_delete_context_on_a_trimmed_session() {
    let tmp = tempfile::tempdir().unwrap();
    demo_store(tmp.path(), 1, 30);
    let id = first_id(tmp.path());
    let memory = sessions(tmp.path()).join(&id).join("memory");
    let root = active_on_disk(&memory);
    let trim = |keep: &str| {
        json(
            tmp.path(),
            &["trim", &id, "--keep-messages", keep, "--json"],
        )["new_context_id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let first = trim("8");
    let second = trim("4");
    let listed = json(tmp.path(), &["contexts", &id, "--json", "--tokens"]);
    let contexts = listed["contexts"].as_array().unwrap();
    assert_eq!(contexts.len(), 3);
    assert!(contexts.iter().all(|c| c["tokens"].as_u64().unwrap() > 0));
    assert_eq!(contexts[0]["created_from"], "first_message", "the root");
    assert_eq!(contexts[2]["created_from"], "file", "a fork");
    assert_eq!(contexts[2]["depth"], 2);
    assert_eq!(
        relations(tmp.path(), &id),
        [
            (root.clone(), "ancestor".to_string()),
            (first.clone(), "ancestor".to_string()),
            (second.clone(), "active".to_string()),
        ]
    );
    let table = ok(tmp.path(), &["contexts", &id]);
    assert!(
        table.contains("(first message)") && table.contains("(file)"),
        "{table}"
    );
    // Neither the active context nor its ancestors can go.
    let before = snapshot(tmp.path());
    for context in [&root, &first, &second] {
        let out = run(tmp.path(), &["delete-context", &id, context, "--yes"]);
        assert_eq!(out.status.code(), Some(2), "{context}");
        assert!(stderr(&out).contains(context.as_str()), "{}", stderr(&out));
    }
    assert_eq!(snapshot(tmp.path()), before, "nothing changed");
    // Undo both trims from a script: the root, by a prefix of its id.
    assert_eq!(ok(tmp.path(), &["activate", &id, &root[..20]]).trim(), root);
    assert_eq!(active_on_disk(&memory), root, "session.json on disk");
    assert_eq!(
        relations(tmp.path(), &id),
        [
            (root.clone(), "active".to_string()),
            (first.clone(), "other".to_string()),
            (second.clone(), "other".to_string()),
        ]
    );
    // The first fork has a fork of its own: that one goes first.
    let out = run(tmp.path(), &["delete-context", &id, &first, "--yes"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains(&second), "{}", stderr(&out));
    // Without a terminal and without --yes: refused, nothing deleted.
    let out = run(tmp.path(), &["delete-context", &id, &second]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--yes"), "{}", stderr(&out));
    assert!(memory.join(format!("{second}.json")).exists());
    assert_eq!(
        children_on_disk(&memory, &first),
        std::slice::from_ref(&second)
    );
    ok(tmp.path(), &["delete-context", &id, &second, "--yes"]);
    assert!(!memory.join(format!("{second}.json")).exists());
    assert!(
        children_on_disk(&memory, &first).is_empty(),
        "its parent forgot it"
    );
    ok(tmp.path(), &["delete-context", &id, &first, "--yes"]);
    assert!(children_on_disk(&memory, &root).is_empty());
    assert_eq!(
        relations(tmp.path(), &id),
        [(root.clone(), "active".to_string())]
    );
    let out = run(tmp.path(), &["activate", &id, "no-such-context"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_damaged_session_refuses_context_changes() {
    let tmp = tempfile::tempdir().unwrap();
    demo_store(tmp.path(), 1, 20);
    let id = first_id(tmp.path());
    let first = json(tmp.path(), &["trim", &id, "--keep-messages", "4", "--json"]);
    let fork = first["new_context_id"].as_str().unwrap().to_string();
    let dir = sessions(tmp.path()).join(&id);
    let root = origin_of(&dir.join("memory"), &fork);
    std::fs::write(dir.join("meta.json"), b"{\"id\": ").unwrap();
    let before = snapshot(tmp.path());
    assert_eq!(
        run(tmp.path(), &["activate", &id, &root]).status.code(),
        Some(2)
    );
    assert_eq!(
        run(tmp.path(), &["delete-context", &id, &root, "--yes"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(snapshot(tmp.path()), before);
}

/// The `origin_context_id` of `context`.
fn origin_of(memory: &Path, context: &str) -> String {
    let raw: Value =
        serde_json::from_slice(&std::fs::read(memory.join(format!("{context}.json"))).unwrap())
            .unwrap();
    raw["origin_context_id"].as_str().unwrap().to_string()
}

#[test]
fn a_peteos_session_is_imported_once_unless_again() {
    let source_store = tempfile::tempdir().unwrap();
    let id = new_session(source_store.path(), "Import me");
    let peteos = tempfile::tempdir().unwrap();
    let source = peteos.path().join(&id);
    std::fs::create_dir(&source).unwrap();
    let memory = sessions(source_store.path()).join(&id).join("memory");
    for entry in std::fs::read_dir(&memory).unwrap().flatten() {
        std::fs::copy(entry.path(), source.join(entry.file_name())).unwrap();
    }
    let tmp = tempfile::tempdir().unwrap();
    let source_arg = source.to_str().unwrap();
    let imported = ok(tmp.path(), &["import", source_arg]).trim().to_string();
    let before = snapshot(tmp.path());
    let out = run(tmp.path(), &["import", source_arg]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("already imported") && err.contains(&imported),
        "{err}"
    );
    assert!(err.contains("--again"), "{err}");
    assert_eq!(snapshot(tmp.path()), before, "no second copy");
    let again = ok(tmp.path(), &["import", source_arg, "--again"])
        .trim()
        .to_string();
    assert_ne!(again, imported);
    assert_eq!(
        json(tmp.path(), &["list", "--json"])
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn the_demo_store_is_removed_on_exit_or_kept_and_either_is_said() {
    let tmp = tempfile::tempdir().unwrap();
    // Without a terminal the UI cannot start; the demo store still ends.
    let out = run(tmp.path(), &["--demo"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    let removed = err
        .lines()
        .find_map(|l| l.strip_prefix("loki-sessions: removing the demo store "))
        .and_then(|l| l.strip_suffix(" (in the background)"))
        .unwrap_or_else(|| panic!("{err}"));
    // Removed by a child process that outlives us: gone within seconds.
    let deadline = std::time::Instant::now() + patience(std::time::Duration::from_secs(20));
    while Path::new(removed).exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "{removed} stays: {err}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }

    let out = run(tmp.path(), &["--demo", "--keep"]);
    let err = stderr(&out);
    let kept = err
        .lines()
        .find_map(|l| l.strip_prefix("loki-sessions: the demo store stays in "))
        .unwrap_or_else(|| panic!("{err}"));
    let kept = kept.split(' ').next().unwrap();
    assert!(Path::new(kept).join("users/demo/session").is_dir(), "{err}");
    std::fs::remove_dir_all(kept).unwrap();
    assert_eq!(
        run(tmp.path(), &["--keep"]).status.code(),
        Some(2),
        "--keep needs --demo"
    );
}

#[test]
fn shells_complete_session_names_and_ids() {
    let tmp = tempfile::tempdir().unwrap();
    let login = new_session(tmp.path(), "Fix the login bug");
    let complete = |words: &[&str]| {
        let out = command()
            .env("COMPLETE", "fish")
            .args([
                "--",
                "loki-sessions",
                "--root",
                tmp.path().to_str().unwrap(),
            ])
            .args(["--user", "tester"])
            .args(words)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    let names = complete(&["show", "fix"]);
    assert!(
        names.lines().any(|l| l.starts_with("fix-the-login-bug\t")),
        "{names}"
    );
    let ids = complete(&["resume", &login[..10]]);
    assert!(
        ids.lines().any(|l| l.starts_with(&format!("{login}\t"))),
        "{ids}"
    );
    let subcommands = complete(&["con"]);
    assert!(subcommands.contains("contexts"), "{subcommands}");
    // Two sessions of one name: each is offered as `name · id`, which
    // starts with what was typed and names one session.
    let first = new_session(tmp.path(), "Tidy the docs");
    let second = new_session(tmp.path(), "Tidy the docs");
    let shared = complete(&["show", "tidy"]);
    for id in [&first, &second] {
        let value = format!("tidy-the-docs · {id}");
        assert!(
            shared.lines().any(|l| l.starts_with(&format!("{value}\t"))),
            "{shared}"
        );
        let shown = ok(tmp.path(), &["show", &value, "--json"]);
        assert!(shown.contains(id.as_str()), "{shown}");
    }
    for shell in ["bash", "zsh", "fish"] {
        let script = ok(tmp.path(), &["completions", shell]);
        assert!(
            script.contains("COMPLETE=") && script.contains("loki-sessions"),
            "{script}"
        );
    }
}
