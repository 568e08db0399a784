//! The CLI contract, end to end on temporary stores.

use crate::common::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Read;
use std::process::Stdio;

#[test]
fn new_then_list_json_has_every_field() {
    let tmp = tempfile::tempdir().unwrap();
    let id = new_session(tmp.path(), "Fix the Login bug!");
    let list = json(tmp.path(), &["list", "--json", "--tokens"]);
    let item = &list[0];
    assert_eq!(item["id"], id.as_str());
    assert_eq!(item["name"], "fix-the-login-bug");
    assert_eq!(item["user"], "tester");
    assert_eq!(item["first_prompt"], "Fix the Login bug!");
    for key in ["created_at", "last_used_at", "bytes", "messages", "tokens"] {
        assert!(item[key].is_number(), "{key}: {item}");
    }
    assert!(item["path"].as_str().unwrap().ends_with(&id));
    assert!(item["error"].is_null());
    let without_tokens = json(tmp.path(), &["list", "--json"]);
    assert!(without_tokens[0].get("tokens").is_none());
}

#[test]
fn list_is_newest_use_first_and_resume_touches() {
    let tmp = tempfile::tempdir().unwrap();
    let a = new_session(tmp.path(), "first");
    let b = new_session(tmp.path(), "second");
    age_session(tmp.path(), &a, 2.0);
    age_session(tmp.path(), &b, 1.0);
    let order: Vec<String> = json(tmp.path(), &["list", "--json"])
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(order, vec![b.clone(), a.clone()]);
    let workspace = ok(tmp.path(), &["resume", &a[..20]]);
    assert_eq!(
        workspace.trim(),
        sessions(tmp.path())
            .join(&a)
            .join("workspace")
            .to_str()
            .unwrap()
    );
    assert_eq!(ok(tmp.path(), &["resume", &a, "--print", "id"]).trim(), a);
    let first = &json(tmp.path(), &["list", "--json"])[0];
    assert_eq!(first["id"], a.as_str(), "resume moved it to the top");
}

#[test]
fn session_arguments_resolve_or_fail_with_the_right_code() {
    let tmp = tempfile::tempdir().unwrap();
    let a = new_session(tmp.path(), "one");
    let _b = new_session(tmp.path(), "two");
    let dir = sessions(tmp.path()).join(&a);
    assert_eq!(
        ok(
            tmp.path(),
            &["resume", dir.to_str().unwrap(), "--print", "id"]
        )
        .trim(),
        a
    );
    let memory = dir.join("memory");
    assert_eq!(
        ok(
            tmp.path(),
            &["resume", memory.to_str().unwrap(), "--print", "path"]
        )
        .trim(),
        dir.to_str().unwrap()
    );
    let ambiguous = run(tmp.path(), &["resume", &a[..8]]);
    assert_eq!(ambiguous.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&ambiguous.stderr);
    assert!(stderr.contains("matches 2 sessions"), "{stderr}");
    assert_eq!(run(tmp.path(), &["resume", "nope"]).status.code(), Some(1));
    assert_eq!(
        run(tmp.path(), &["resume", "/nonexistent/dir"])
            .status
            .code(),
        Some(1)
    );
    assert_eq!(run(tmp.path(), &["show", "../etc"]).status.code(), Some(1));
}

#[test]
fn show_json_marks_specials_and_counts_tokens() {
    let tmp = tempfile::tempdir().unwrap();
    ok(
        tmp.path(),
        &[
            "demo",
            "--sessions",
            "5",
            "--messages",
            "10",
            "--big-context",
            "0",
            "--plain",
        ],
    );
    let id = json(tmp.path(), &["list", "--json"])[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let shown = json(tmp.path(), &["show", &id, "--json"]);
    let messages = shown["messages"].as_array().unwrap();
    assert_eq!(messages[0]["special"], "system_prompt");
    assert_eq!(messages[1]["special"], "tool_definitions");
    assert!(messages[2]["special"].is_null());
    let sum: u64 = messages.iter().map(|m| m["tokens"].as_u64().unwrap()).sum();
    assert_eq!(shown["total_tokens"].as_u64().unwrap(), sum);
    assert_eq!(shown["encoding"], "cl100k_base");
    for m in messages {
        assert!(!m["text"].as_str().unwrap().contains('\n'), "one line: {m}");
    }
    let o200k = json(
        tmp.path(),
        &["show", &id, "--json", "--encoding", "o200k_base"],
    );
    assert_eq!(o200k["encoding"], "o200k_base");
    assert_ne!(o200k["total_tokens"], shown["total_tokens"]);
    assert_eq!(
        run(tmp.path(), &["show", &id, "--encoding", "gpt2"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn trim_dry_run_writes_nothing_and_trim_forks() {
    let tmp = tempfile::tempdir().unwrap();
    ok(
        tmp.path(),
        &[
            "demo",
            "--sessions",
            "3",
            "--messages",
            "40",
            "--big-context",
            "0",
            "--plain",
        ],
    );
    let id = json(tmp.path(), &["list", "--json"])[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let before = snapshot(tmp.path());
    let preview = json(
        tmp.path(),
        &["trim", &id, "--keep-messages", "4", "--dry-run", "--json"],
    );
    assert_eq!(snapshot(tmp.path()), before, "a dry run changes nothing");
    assert_eq!(preview["changed"], true);
    assert!(preview["new_context_id"].is_null());
    let done = json(tmp.path(), &["trim", &id, "--keep-messages", "4", "--json"]);
    assert_eq!(done["kept_message_ids"], preview["kept_message_ids"]);
    assert_eq!(done["dropped_message_ids"], preview["dropped_message_ids"]);
    assert_eq!(
        done["kept_message_ids"].as_array().unwrap().len(),
        6,
        "2 specials + 4"
    );
    let new_id = done["new_context_id"].as_str().unwrap();
    let shown = json(tmp.path(), &["show", &id, "--json"]);
    assert_eq!(shown["active_context_id"], new_id);
    let ids: Vec<&Value> = shown["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["id"])
        .collect();
    assert_eq!(
        ids,
        done["kept_message_ids"]
            .as_array()
            .unwrap()
            .iter()
            .collect::<Vec<_>>()
    );
    // Nothing left to do: exit 1, and every message is listed as kept.
    let again = run(tmp.path(), &["trim", &id, "--keep-messages", "4", "--json"]);
    assert_eq!(again.status.code(), Some(1));
    let again: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(again["changed"], false);
    assert_eq!(again["kept_message_ids"].as_array().unwrap().len(), 6);
    assert_eq!(
        run(tmp.path(), &["trim", &id]).status.code(),
        Some(2),
        "needs an amount"
    );
    assert_eq!(
        run(tmp.path(), &["trim", &id, "--keep-messages", "0"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn purge_previews_asks_and_removes_exactly_the_plan() {
    let tmp = tempfile::tempdir().unwrap();
    let old = new_session(tmp.path(), "old work");
    let fresh = new_session(tmp.path(), "fresh work");
    age_session(tmp.path(), &old, 41.5);
    let before = snapshot(tmp.path());
    let plan = json(tmp.path(), &["purge", "--dry-run", "--json"]);
    assert_eq!(snapshot(tmp.path()), before);
    assert_eq!(plan["remove"][0]["id"], old.as_str());
    assert_eq!(
        plan["remove"][0]["reason"],
        "stale: unused for 41 days (limit 30 days)"
    );
    assert!(plan["remove"][0]["bytes"].as_u64().unwrap() > 0);
    assert_eq!(plan["keep"][0]["id"], fresh.as_str());
    assert!(plan["bytes_freed"].as_u64().unwrap() > 0);
    let refused = run(tmp.path(), &["purge"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("not a terminal"));
    assert_eq!(snapshot(tmp.path()), before);
    let done = json(tmp.path(), &["purge", "--yes", "--json"]);
    assert_eq!(done["removed"], serde_json::json!([old]));
    assert!(!sessions(tmp.path()).join(&old).exists());
    assert!(sessions(tmp.path()).join(&fresh).exists());
    assert_eq!(
        run(tmp.path(), &["purge", "--yes"]).status.code(),
        Some(1),
        "nothing to do"
    );
    let keep_one = json(
        tmp.path(),
        &[
            "purge",
            "--dry-run",
            "--json",
            "--keep",
            "0",
            "--max-age",
            "1000d",
        ],
    );
    assert_eq!(keep_one["remove"][0]["reason"], "beyond keep: #1 of 0");
}

#[test]
fn new_purges_stale_sessions_and_says_so_on_stderr() {
    let tmp = tempfile::tempdir().unwrap();
    let old = new_session(tmp.path(), "ancient");
    age_session(tmp.path(), &old, 90.0);
    let out = run(tmp.path(), &["new", "next task", "--yes"]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "purged {old} (ancient): stale: unused for 90 days (limit 30 days)"
        )),
        "{stderr}"
    );
    assert!(!sessions(tmp.path()).join(&old).exists());
    let quiet = new_session(tmp.path(), "no purge please");
    assert!(sessions(tmp.path()).join(quiet).exists());
}

#[test]
fn damaged_entries_are_listed_and_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let good = new_session(tmp.path(), "good");
    let broken = new_session(tmp.path(), "broken");
    let folder = sessions(tmp.path());
    std::fs::write(folder.join(&broken).join("meta.json"), b"{\"id\": ").unwrap();
    std::fs::write(folder.join("stray-file.txt"), b"hello").unwrap();
    std::fs::create_dir(folder.join("no-meta")).unwrap();
    age_session(tmp.path(), &good, 0.0);
    let before = snapshot(tmp.path());
    let list = json(tmp.path(), &["list", "--json"]);
    assert_eq!(list.as_array().unwrap().len(), 4);
    let errors: Vec<String> = list
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["error"].as_str().map(str::to_string))
        .collect();
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(
        errors
            .iter()
            .any(|e| e.contains(&broken) && e.contains("meta.json"))
    );
    assert!(errors.iter().any(|e| e.contains("stray-file.txt")));
    assert!(errors.iter().any(|e| e.contains("no-meta")));
    let plan = json(tmp.path(), &["purge", "--dry-run", "--json", "--keep", "0"]);
    assert_eq!(
        plan["remove"].as_array().unwrap().len(),
        1,
        "only the readable one: {plan}"
    );
    assert_eq!(snapshot(tmp.path()), before, "nothing touched");
    assert_eq!(run(tmp.path(), &["resume", &broken]).status.code(), Some(2));
}

#[test]
fn help_version_and_completions() {
    let tmp = tempfile::tempdir().unwrap();
    assert!(ok(tmp.path(), &["--version"]).starts_with("loki-sessions "));
    for sub in [
        "list",
        "new",
        "resume",
        "show",
        "trim",
        "purge",
        "completions",
        "demo",
    ] {
        let help = ok(tmp.path(), &[sub, "--help"]);
        assert!(help.contains("Example"), "{sub} --help has an example");
    }
    for shell in ["bash", "zsh", "fish"] {
        assert!(ok(tmp.path(), &["completions", shell]).contains("loki-sessions"));
    }
    assert_eq!(
        run(tmp.path(), &["completions", "tcsh"]).status.code(),
        Some(2)
    );
    assert_eq!(run(tmp.path(), &["frobnicate"]).status.code(), Some(2));
}

#[test]
fn a_closed_pipe_exits_quietly() {
    let tmp = tempfile::tempdir().unwrap();
    ok(
        tmp.path(),
        &[
            "demo",
            "--sessions",
            "400",
            "--messages",
            "4",
            "--big-context",
            "0",
            "--plain",
        ],
    );
    let mut child = command()
        .args([
            "--root",
            tmp.path().to_str().unwrap(),
            "--user",
            "tester",
            "list",
            "--json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The reader is gone now (stdout dropped).
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn end_to_end_on_a_store_of_thousands() {
    let tmp = tempfile::tempdir().unwrap();
    let made = json(
        tmp.path(),
        &[
            "demo",
            "--sessions",
            "2500",
            "--messages",
            "8",
            "--big-context",
            "2000",
        ],
    );
    let list = json(tmp.path(), &["list", "--json"]);
    assert_eq!(list.as_array().unwrap().len(), 2500);
    let damaged = made["damaged"].as_str().unwrap();
    assert!(
        list.as_array()
            .unwrap()
            .iter()
            .any(|i| i["id"] == damaged && i["error"].is_string())
    );
    let big = made["big"].as_str().unwrap();
    let trimmed = json(
        tmp.path(),
        &["trim", big, "--max-tokens", "30000", "--json"],
    );
    assert!(trimmed["tokens_after"].as_u64().unwrap() <= 30000);
    let plan = json(tmp.path(), &["purge", "--dry-run", "--json"]);
    let removals = plan["remove"].as_array().unwrap().len();
    let kept = plan["keep"].as_array().unwrap().len();
    assert_eq!(removals + kept, 2500);
    check_default_plan(&list, &plan, damaged);
    // With nothing kept by policy, the safety rules alone spare sessions.
    let all = json(tmp.path(), &["purge", "--dry-run", "--json", "--keep", "0"]);
    let spared = reasons(&all, "keep");
    let active = made["active"].as_str().unwrap();
    assert_eq!(spared.len(), 2, "{spared:?}");
    assert!(reason(&spared, active).starts_with("active"));
    assert!(reason(&spared, damaged).starts_with("unreadable"));
    let done = json(tmp.path(), &["purge", "--yes", "--json"]);
    assert_eq!(done["removed"].as_array().unwrap().len(), removals);
    assert_eq!(
        json(tmp.path(), &["list", "--json"])
            .as_array()
            .unwrap()
            .len(),
        kept
    );
}

/// `id -> reason` of the plan's `keep` or `remove` list.
fn reasons(plan: &Value, key: &str) -> BTreeMap<String, String> {
    let entries = plan[key].as_array().unwrap().iter();
    entries
        .map(|e| {
            (
                e["id"].as_str().unwrap().into(),
                e["reason"].as_str().unwrap().into(),
            )
        })
        .collect()
}

fn reason(of: &BTreeMap<String, String>, id: &str) -> String {
    let found = of.get(id).cloned();
    found.unwrap_or_else(|| panic!("{id} is not in {of:?}"))
}

/// Defaults (keep 100, 30 days): the damaged session is spared as unreadable,
/// the 100 most recently used of the others are kept in rank order, and
/// every other one goes: stale when unused more than 30 days, else beyond keep.
fn check_default_plan(list: &Value, plan: &Value, damaged: &str) {
    let (keep, remove) = (reasons(plan, "keep"), reasons(plan, "remove"));
    assert!(reason(&keep, damaged).starts_with("unreadable"));
    assert_eq!(keep.len(), 101, "{keep:?}");
    let readable = list
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["error"].is_null());
    for (rank, item) in readable.enumerate() {
        let id = item["id"].as_str().unwrap();
        let unused_days = (now() - item["last_used_at"].as_f64().unwrap()) / 86_400.0;
        let (of, want) = if rank < 100 {
            (&keep, format!("recent: #{}, ", rank + 1))
        } else if unused_days > 30.001 {
            (&remove, "stale".to_string())
        } else if unused_days < 29.999 {
            (&remove, format!("beyond keep: #{} of 100", rank + 1))
        } else {
            continue; // too close to the limit to say
        };
        assert!(
            reason(of, id).starts_with(&want),
            "{id}: {} (want {want})",
            reason(of, id)
        );
    }
}

#[test]
fn show_prints_the_transcript_the_viewer_shows() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    ok(
        root,
        &[
            "demo",
            "--sessions",
            "4",
            "--messages",
            "14",
            "--big-context",
            "0",
            "--seed",
            "3",
        ],
    );
    let id = json(root, &["list", "--json"])[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let shown = json(root, &["show", &id, "--json"]);
    let messages = shown["messages"].as_array().unwrap();
    let text = ok(root, &["show", &id, "--format", "transcript"]);
    assert!(!text.contains('\x1b'), "no escapes into a pipe");
    // Each message has its header, with its tokens, in order.
    let mut at = 0;
    for m in messages {
        // JSON counts from 0, the transcript from 1.
        let header = format!(
            "── #{} {}",
            m["index"].as_u64().unwrap() + 1,
            match m["special"].as_str() {
                Some("system_prompt") => "system prompt",
                Some(_) => "tool definitions",
                None => m["role"].as_str().unwrap(),
            }
        );
        let found = text[at..]
            .find(&header)
            .unwrap_or_else(|| panic!("{header} in\n{text}"));
        at += found;
        assert!(text[at..].lines().next().unwrap().contains(" tokens"));
    }
    assert!(
        text.lines().all(|l| wrap_width(l) <= 100),
        "wrapped at 100 columns"
    );
    // Tools: off names each call, full shows what truncated cuts.
    let off = ok(
        root,
        &["show", &id, "--format", "transcript", "--tools", "off"],
    );
    let full = ok(
        root,
        &[
            "show",
            &id,
            "--format",
            "transcript",
            "--tools",
            "full",
            "--thinking",
        ],
    );
    assert!(off.contains("tool call") && off.len() < text.len() && text.len() <= full.len());
    assert!(!text.contains("more line") || full.len() > text.len());
    let plain = ok(
        root,
        &[
            "show",
            &id,
            "--format",
            "transcript",
            "--plain",
            "--no-pager",
        ],
    );
    assert_eq!(plain, text);
    let bad = run(root, &["show", &id, "--format", "transcript", "--json"]);
    assert_eq!(bad.status.code(), Some(2), "a transcript is not JSON");
    let bad = run(
        root,
        &["show", &id, "--format", "transcript", "--tools", "some"],
    );
    assert_eq!(bad.status.code(), Some(2));
}

fn wrap_width(line: &str) -> usize {
    line.chars().count()
}
