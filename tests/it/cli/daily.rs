//! What a person using the CLI every day trips on: flags in the place they
//! put them, keys of their own, sessions named the way the list shows them.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::Output;

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A store with three sessions; the id of the first.
fn three() -> (tempfile::TempDir, PathBuf, String) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("store");
    std::fs::create_dir(&root).unwrap();
    let first = new_session(&root, "fix the login bug");
    new_session(&root, "refactor the parser");
    new_session(&root, "write the release notes");
    (tmp, root, first)
}

#[test]
fn resume_takes_the_top_level_print_and_exec_and_its_own_json() {
    let (tmp, root, id) = three();
    let by_top = ok(&root, &["--print", "id", "resume", "fix-the-login-bug"]);
    assert_eq!(by_top.trim(), id, "the top-level --print applies to resume");
    let own = ok(&root, &["--print", "id", "resume", &id, "--print", "path"]);
    assert!(own.trim().ends_with(&id), "its own --print wins: {own}");
    let json = json(&root, &["resume", &id, "--json"]);
    assert_eq!(json["id"], id.as_str());
    assert!(json["workspace"].as_str().unwrap().ends_with("workspace"));
    let marker = tmp.path().join("ran");
    let exec = format!("touch {}/{{id}}", marker.display());
    std::fs::create_dir(&marker).unwrap();
    let out = run(&root, &["--exec", &exec, "resume", &id]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(marker.join(&id).exists(), "--exec before resume ran");
    assert!(out.stdout.is_empty(), "and nothing was printed");
}

#[test]
fn the_uis_options_before_another_subcommand_are_refused_not_ignored() {
    let (_tmp, root, _) = three();
    for args in [
        &["--print", "id", "list"][..],
        &["--exec", "true", "show", "fix-the-login-bug"],
        &["--window", "200000", "list"],
    ] {
        let out = run(&root, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.contains(args[0]) && err.contains("option of the terminal UI"),
            "{err}"
        );
    }
}

/// Runs the UI with `config` as the config file; stdin is no terminal, so
/// it can only get as far as checking the config.
fn ui_with_config(root: &Path, config: &str) -> Output {
    let file = root.with_extension("toml");
    std::fs::write(&file, config).unwrap();
    command()
        .env("XDG_CACHE_HOME", root.with_extension("cache"))
        .arg("--root")
        .arg(root)
        .args(["--user", "tester", "--config"])
        .arg(&file)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn keys_of_your_own_are_checked_before_the_ui_starts_naming_the_line() {
    let (_tmp, root, _) = three();
    let cases = [
        (
            "keep = 10\n[keys]\nfrobnicate = \"x\"\n",
            "line 3",
            "no action",
        ),
        (
            "[keys]\nopen = \"C-o\"\n\"list.resume\" = \"r\"\n",
            "line 3",
            "would type",
        ),
        (
            "[keys]\n\n\"viewer.contexts\" = \"e\"\n",
            "line 3",
            "switch encoding",
        ),
        ("[keys]\nquit = \"C-z\"\n", "line 2", "kept for quitting"),
        ("[keys]\nopen = \"Hyper-o\"\n", "line 2", "is not a key"),
    ];
    for (config, line, why) in cases {
        let out = ui_with_config(&root, config);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{config}: {err}");
        assert!(err.contains(line) && err.contains(why), "{config}: {err}");
        assert!(err.contains(".toml"), "names the file: {err}");
    }
    // Good keys get past the check (and then there is no terminal).
    let out = ui_with_config(&root, "[keys]\nopen = [\"Tab\", \"C-x\"]\n");
    assert!(!stderr(&out).contains("[keys]"), "{}", stderr(&out));
}

#[test]
fn a_session_named_by_a_path_needs_no_loki_home_and_any_path_inside_finds_it() {
    let (tmp, root, id) = three();
    let session = sessions(&root).join(&id);
    let deep = session.join("workspace/src/deep");
    std::fs::create_dir_all(&deep).unwrap();
    let home = tmp.path().join("home-without-loki");
    std::fs::create_dir(&home).unwrap();
    let show = |dir: &Path, arg: &str| {
        command()
            .at_home(&home)
            .env("XDG_CACHE_HOME", tmp.path().join("cache"))
            .current_dir(dir)
            .args(["show", arg, "--json"])
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    for (dir, arg) in [
        (tmp.path(), session.to_str().unwrap()),
        (deep.as_path(), "."),
        (session.as_path(), "./memory"),
        (deep.as_path(), "../.."),
    ] {
        let out = show(dir, arg);
        assert!(
            out.status.success(),
            "{arg} in {}: {}",
            dir.display(),
            stderr(&out)
        );
        let shown: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(shown["session"]["id"], id.as_str(), "{arg}");
    }
    let out = show(tmp.path(), ".");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("nor inside one"), "{}", stderr(&out));
}

#[test]
fn a_root_given_at_a_folder_of_the_tree_says_what_to_pass() {
    let (_tmp, root, id) = three();
    let users = root.join("users");
    let cases = [
        (
            users.join("tester/session"),
            "session folder of user tester",
        ),
        (users.clone(), "users folder"),
        (users.join("tester"), "folder of user tester"),
        (
            users.join("tester/session").join(&id),
            "looks like one session",
        ),
    ];
    for (given, says) in cases {
        let out = command()
            .arg("--root")
            .arg(&given)
            .arg("list")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", given.display());
        let err = stderr(&out);
        assert!(err.contains(says), "{}: {err}", given.display());
        if !says.contains("one session") {
            assert!(err.contains(&format!("--root {}", root.display())), "{err}");
        }
    }
}

#[test]
fn a_name_several_sessions_share_takes_the_newest_or_the_lists_form() {
    let (_tmp, root, older) = three();
    age_session(&root, &older, 2.0);
    let newer = new_session(&root, "fix the login bug");
    let out = run(&root, &["show", "fix-the-login-bug", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let shown: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        shown["session"]["id"],
        newer.as_str(),
        "the most recently used"
    );
    let note = stderr(&out);
    assert!(
        note.contains("2 sessions are named") && note.contains(&older[..13]),
        "{note}"
    );
    // The form the list shows beside a shared name picks the other one.
    let listed = format!("fix-the-login-bug · {}", &older[..13]);
    let shown = json(&root, &["show", &listed, "--json"]);
    assert_eq!(shown["session"]["id"], older.as_str());
    // A delete never picks: it lists them.
    let out = run(&root, &["delete", "fix-the-login-bug", "--yes"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("matches 2 sessions"),
        "{}",
        stderr(&out)
    );
    assert!(sessions(&root).join(&older).exists() && sessions(&root).join(&newer).exists());
    // By the setting, every command lists them.
    let config = root.with_extension("toml");
    std::fs::write(&config, "duplicate_names = \"refuse\"\n").unwrap();
    let config = config.to_str().unwrap();
    let out = run(&root, &["--config", config, "show", "fix-the-login-bug"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("matches 2 sessions"));
}

/// A demo store whose first session has a context of `messages` messages.
fn demo(messages: usize) -> (tempfile::TempDir, PathBuf, String) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("store");
    std::fs::create_dir(&root).unwrap();
    let count = messages.to_string();
    let args = [
        "demo",
        "--sessions",
        "3",
        "--messages",
        "8",
        "--big-context",
        &count,
    ];
    ok(&root, &args);
    let listed = json(&root, &["list", "--json", "--sort", "messages"]);
    let id = listed[0]["id"].as_str().unwrap().to_string();
    (tmp, root, id)
}

#[test]
fn numbers_read_alike_messages_count_from_one_and_tokens_take_k() {
    let (_tmp, root, id) = demo(1_200);
    let list = ok(&root, &["list", "--tokens"]);
    let row = list.lines().find(|l| l.starts_with(&id[..17])).unwrap();
    assert!(row.contains("1,2"), "message counts have separators: {row}");
    // The last message of the table is the count itself.
    let shown = json(&root, &["show", &id, "--json"]);
    let last = shown["messages"].as_array().unwrap().len();
    let table = ok(&root, &["show", &id]);
    let bottom = table.lines().last().unwrap().trim_start();
    assert!(bottom.starts_with(&last.to_string()), "{bottom}");
    // 50k is fifty thousand, and a dry run says the same as 50000.
    let a = json(
        &root,
        &["trim", &id, "--max-tokens", "50k", "--dry-run", "--json"],
    );
    let b = json(
        &root,
        &["trim", &id, "--max-tokens", "50000", "--dry-run", "--json"],
    );
    assert_eq!(a, b);
    let out = run(&root, &["trim", &id, "--max-tokens", "fifty", "--dry-run"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("try 50000, 50k"), "{}", stderr(&out));
}

#[test]
fn export_takes_its_format_from_the_file_name_and_asks_when_it_cannot() {
    let (tmp, root, id) = three();
    let file = tmp.path().join("out.md");
    ok(&root, &["export", &id, "-o", file.to_str().unwrap()]);
    assert!(std::fs::read_to_string(&file).unwrap().starts_with("# "));
    let file = tmp.path().join("out.json");
    ok(&root, &["export", &id, "-o", file.to_str().unwrap()]);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert!(doc["messages"].is_array());
    let out = run(&root, &["export", &id, "-o", "out.pdf"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("which format"), "{}", stderr(&out));
    assert!(!Path::new("out.pdf").exists());
}

#[test]
fn search_lines_up_and_says_when_and_activate_answers_in_json() {
    let (_tmp, root, id) = demo(30);
    let text = ok(&root, &["search", "the", "--limit", "20"]);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() > 3, "{text}");
    // The role column starts at one place on every line.
    let role_at = |l: &str| {
        l.find("  user  ")
            .or(l.find("  assistant  "))
            .or(l.find("  tool  "))
    };
    let starts: std::collections::HashSet<_> = lines
        .iter()
        .filter_map(|l| role_at(l).map(|at| unicode_width::UnicodeWidthStr::width(&l[..at])))
        .collect();
    assert_eq!(starts.len(), 1, "{text}");
    assert!(text.contains(" ago "), "when each session was used: {text}");
    let trimmed = json(&root, &["trim", &id, "--keep-messages", "2", "--json"]);
    assert_eq!(trimmed["changed"], true);
    let parent = json(&root, &["contexts", &id, "--json"])["contexts"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let answer = json(&root, &["activate", &id, &parent, "--json"]);
    assert_eq!(answer["session"], id.as_str());
    assert_eq!(answer["active_context_id"], parent.as_str());
    // The diff of the fork shows what each dropped message said.
    ok(
        &root,
        &["activate", &id, trimmed["new_context_id"].as_str().unwrap()],
    );
    let diff = ok(&root, &["diff", &id]);
    let dropped = diff.lines().find(|l| l.starts_with("- #")).unwrap();
    assert!(
        dropped.split("  ").filter(|s| !s.trim().is_empty()).count() >= 4,
        "{dropped}"
    );
}

#[test]
fn usage_lines_do_not_ask_for_root_when_loki_home_gives_it() {
    let (_tmp, root, _) = three();
    let out = command()
        .env("LOKI_HOME", &root)
        .args(["--user", "tester", "show"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("Usage: loki-sessions show"), "{err}");
    assert!(!err.contains("--root"), "{err}");
    let listed = command()
        .env("LOKI_HOME", &root)
        .env("XDG_CACHE_HOME", root.with_extension("cache"))
        .args(["--user", "tester", "list"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&listed.stdout).contains("fix-the-login-bug"));
}
