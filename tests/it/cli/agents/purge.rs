//! `purge --agent claude|codex|gemini`: another agent's old sessions, by the
//! same policy as Loki's purge, moved into our trash with their subagents'
//! files and side folders; `restore` gives them back byte for byte; a
//! session its agent may be writing is spared and says why; nothing of
//! another agent is purged unless it is named.

use super::Home;
use super::trash::{age_files, state};
use crate::common::{demo_store, json, now};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The listed sessions of `agent`: (id, minutes since last use, path, damaged).
fn sessions(h: &Home, agent: &str) -> Vec<(String, f64, PathBuf, bool)> {
    let list = h.json(&["list", "--json", "--agent", agent]);
    let now = now();
    list.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap().to_string(),
                (now - r["last_used_at"].as_f64().unwrap()) / 60.0,
                PathBuf::from(r["path"].as_str().unwrap()),
                !r["error"].is_null(),
            )
        })
        .collect()
}

/// A limit in minutes halfway in the widest gap between two sessions' ages
/// around the middle, so that neither side is a matter of seconds.
fn limit_between(ages: &[f64]) -> f64 {
    let mut ages = ages.to_vec();
    ages.sort_by(f64::total_cmp);
    let mid = ages.len() / 2;
    let (a, b) = (ages[mid - 1], ages[mid]);
    assert!(
        b - a > 10.0,
        "the fixtures' ages are minutes apart: {ages:?}"
    );
    ((a + b) / 2.0).round()
}

fn ids(rows: &Value) -> BTreeSet<String> {
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

/// The bytes a delete of session `id` at `path` moves, found here without
/// the program: the file, its folder beside it, and older subagent files
/// (`agent-*.jsonl` beside it) that name it.
fn bytes_moved(id: &str, path: &Path) -> u64 {
    let dir = path.parent().unwrap();
    let mut total = std::fs::metadata(path).unwrap().len();
    let side = dir.join(id);
    if side.is_dir() && !path.to_string_lossy().contains("/.codex/") {
        total += state(&side)
            .values()
            .map(|(bytes, _, _)| bytes.len() as u64)
            .sum::<u64>();
    }
    if path.to_string_lossy().contains("/.claude/") {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with("agent-") && name.ends_with(".jsonl") {
                let text = std::fs::read(e.path()).unwrap();
                let head = String::from_utf8_lossy(&text[..text.len().min(16 * 1024)]);
                if head
                    .lines()
                    .take(5)
                    .any(|l| l.contains(&format!("\"sessionId\":\"{id}\"")))
                {
                    total += text.len() as u64;
                }
            }
        }
    }
    total
}

/// Each removal's bytes are what a delete of it moves; `bytes` their sum.
fn check_bytes(plan: &Value, listed: &[(String, f64, PathBuf, bool)]) {
    let mut total = 0;
    for row in plan["remove"].as_array().unwrap() {
        let id = row["id"].as_str().unwrap();
        let (_, _, path, _) = listed.iter().find(|s| s.0 == id).unwrap();
        assert_eq!(row["bytes"], bytes_moved(id, path), "{id}");
        total += row["bytes"].as_u64().unwrap();
    }
    assert_eq!(plan["bytes"], total);
}

#[test]
fn a_dry_run_lists_the_stale_and_those_beyond_keep_with_reasons_and_bytes() {
    let h = Home::new();
    age_files(&h.home);
    let before = state(&h.home);
    for agent in ["claude", "codex", "gemini"] {
        let listed = sessions(&h, agent);
        let healthy: Vec<_> = listed.iter().filter(|s| !s.3).collect();
        let limit = limit_between(&healthy.iter().map(|s| s.1).collect::<Vec<_>>());
        let stale: BTreeSet<String> = healthy
            .iter()
            .filter(|s| s.1 > limit)
            .map(|s| s.0.clone())
            .collect();
        let max_age = format!("{limit}m");
        let plan = h.json(&[
            "purge",
            "--agent",
            agent,
            "--max-age",
            &max_age,
            "--dry-run",
            "--json",
        ]);
        assert_eq!(plan["agent"], agent);
        assert_eq!(plan["trashed"], true);
        assert_eq!(ids(&plan["remove"]), stale, "{agent}: {plan}");
        for row in plan["remove"].as_array().unwrap() {
            let reason = row["reason"].as_str().unwrap();
            assert!(reason.starts_with("stale: unused for "), "{reason}");
            assert!(
                reason.contains(" (limit ") && reason.ends_with(" days)"),
                "{reason}"
            );
        }
        check_bytes(&plan, &listed);
        assert_eq!(
            plan["bytes_freed"], 0,
            "nothing is freed: it goes to the trash"
        );
        // Damaged sessions are spared, with why, and take no place.
        for damaged in listed.iter().filter(|s| s.3) {
            let kept = plan["keep"].as_array().unwrap();
            let row = kept.iter().find(|r| r["id"] == damaged.0.as_str()).unwrap();
            assert!(row["reason"].as_str().unwrap().starts_with("unreadable"));
        }
        // By count: the two most recently used kept, the rest beyond keep.
        let plan = h.json(&[
            "purge",
            "--agent",
            agent,
            "--keep",
            "2",
            "--max-age",
            "3650d",
            "--dry-run",
            "--json",
        ]);
        assert_eq!(plan["remove"].as_array().unwrap().len(), healthy.len() - 2);
        for (n, row) in plan["remove"].as_array().unwrap().iter().enumerate() {
            assert_eq!(row["reason"], format!("beyond keep: #{} of 2", n + 3));
        }
        check_bytes(&plan, &listed);
        let text = h.ok(&["purge", "--agent", agent, "--keep", "2", "--dry-run"]);
        assert!(text.contains("to move to the trash"), "{text}");
        assert!(text.lines().any(|l| l.starts_with("trash ")), "{text}");
    }
    assert_eq!(state(&h.home), before, "a dry run moves nothing");
}

#[test]
fn a_purge_moves_sessions_with_their_side_files_to_the_trash_and_restore_gives_them_back() {
    let h = Home::new();
    age_files(&h.home);
    let before = state(&h.home);
    let with_subagents = h.made.claude_with_subagents.clone().unwrap();
    let mut moved = Vec::new();
    for agent in ["claude", "codex", "gemini"] {
        let done = h.json(&[
            "purge",
            "--agent",
            agent,
            "--keep",
            "1",
            "--max-age",
            "3650d",
            "--yes",
            "--json",
        ]);
        let removed: Vec<String> = done["removed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        assert_eq!(removed.len(), done["remove"].as_array().unwrap().len());
        assert!(!removed.is_empty(), "{agent}: {done}");
        assert!(done["bytes"].as_u64().unwrap() > 0);
        moved.extend(removed);
    }
    assert!(
        moved.contains(&with_subagents),
        "the one with subagents went"
    );
    let after = state(&h.home);
    let gone: Vec<&PathBuf> = before.keys().filter(|p| !after.contains_key(*p)).collect();
    assert!(gone.iter().any(|p| p.ends_with("subagents")), "{gone:?}");
    assert!(
        gone.iter()
            .any(|p| p.to_string_lossy().contains("/tool-results/")
                || p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("agent-")),
        "its side files went along: {gone:?}"
    );
    let trash = h.json(&["trash", "--json"]);
    assert_eq!(ids(&trash), moved.iter().cloned().collect());
    // Each agent kept its most recent one.
    for agent in ["claude", "codex", "gemini"] {
        assert!(!sessions(&h, agent).is_empty(), "{agent} kept one");
    }
    for id in &moved {
        h.ok(&["restore", id]);
    }
    assert_eq!(state(&h.home), before, "every byte and time back");
}

#[test]
fn a_session_its_agent_may_be_writing_is_spared_with_the_reason() {
    let h = Home::new();
    age_files(&h.home);
    let listed = sessions(&h, "codex");
    let (fresh_id, _, fresh_path, _) = listed.last().unwrap().clone();
    let f = std::fs::File::options()
        .append(true)
        .open(&fresh_path)
        .unwrap();
    f.set_modified(SystemTime::now()).unwrap();
    // Closed, as an agent leaves it between writes: only its age spares it.
    drop(f);
    let before = state(&h.home);
    let plan = h.json(&[
        "purge",
        "--agent",
        "codex",
        "--keep",
        "0",
        "--max-age",
        "0d",
        "--dry-run",
        "--json",
    ]);
    assert!(!ids(&plan["remove"]).contains(&fresh_id));
    let row = plan["keep"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == fresh_id.as_str())
        .unwrap()
        .clone();
    let reason = row["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("busy: it changed") && reason.contains("may still be writing"),
        "{reason}"
    );
    let text = h.ok(&[
        "purge",
        "--agent",
        "codex",
        "--keep",
        "0",
        "--max-age",
        "0d",
        "--dry-run",
    ]);
    assert!(
        text.lines()
            .any(|l| l.starts_with("spare") && l.contains(&fresh_id) && l.contains("busy")),
        "{text}"
    );
    assert_eq!(state(&h.home), before);
    let done = h.json(&[
        "purge",
        "--agent",
        "codex",
        "--keep",
        "0",
        "--max-age",
        "0d",
        "--yes",
        "--json",
    ]);
    assert!(!ids(&done["remove"]).contains(&fresh_id));
    assert_eq!(
        sessions(&h, "codex")
            .iter()
            .map(|s| s.0.clone())
            .collect::<Vec<_>>(),
        vec![fresh_id],
        "only the busy one is left"
    );
    assert!(fresh_path.exists());
    // Open in a running process (an agent with the file open): spared too.
    let (open_id, _, open_path, _) = sessions(&h, "claude").into_iter().find(|s| !s.3).unwrap();
    let mut holder = std::process::Command::new("sh")
        .arg("-c")
        .arg("exec 3<\"$1\"; exec sleep 30")
        .arg("sh")
        .arg(&open_path)
        .spawn()
        .unwrap();
    let fd = PathBuf::from(format!("/proc/{}/fd/3", holder.id()));
    for _ in 0..200 {
        if std::fs::read_link(&fd).is_ok_and(|p| p == open_path) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
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
    holder.kill().unwrap();
    holder.wait().unwrap();
    let row = plan["keep"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == open_id.as_str())
        .unwrap()
        .clone();
    assert_eq!(
        row["reason"],
        format!(
            "busy: process {} has it open (Claude Code may be running on it)",
            holder.id()
        )
    );
}

#[test]
fn nothing_of_another_agent_goes_unless_it_is_named_nor_without_a_yes() {
    let h = Home::new();
    age_files(&h.home);
    let before = state(&h.home);
    // Loki's purge (no --agent) never looks at another agent's sessions:
    // on a Loki tree beside them it removes every Loki session and only
    // those (it succeeds, so a purge that took them too would show).
    let (_loki, root) = demo_store(3, 4, &["--plain"]);
    let loki: BTreeSet<String> = ids(&json(&root, &["list", "--json"]));
    assert_eq!(loki.len(), 3);
    let on_tree = ["--root", root.to_str().unwrap(), "--user", "tester"];
    let purge = [&on_tree[..], &["purge", "--keep", "0", "--max-age", "0d"]].concat();
    let plan = h.json(&[&purge[..], &["--dry-run", "--json"]].concat());
    let everything = ids(&h.json(&[&on_tree[..], &["list", "--json"]].concat()));
    assert!(
        everything.len() > loki.len(),
        "the agents' sessions are listed beside"
    );
    assert_eq!(ids(&plan["remove"]), loki, "{plan}");
    assert!(ids(&plan["keep"]).is_empty(), "{plan}");
    let done = h.json(&[&purge[..], &["--yes", "--json"]].concat());
    let removed: BTreeSet<String> = done["removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_str().unwrap().to_string())
        .collect();
    assert_eq!(removed, loki, "{done}");
    assert_eq!(ids(&json(&root, &["list", "--json"])), BTreeSet::new());
    // No terminal, no --yes: refused as Loki's purge refuses.
    let out = h.run(&["purge", "--agent", "claude", "--keep", "0"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("refusing to purge without confirmation: stdin is not a terminal"),
        "{err}"
    );
    // One agent at a time.
    let out = h.run(&["purge", "--agent", "claude", "--agent", "codex", "--yes"]);
    assert_eq!(out.status.code(), Some(2));
    // The defaults are conservative: nothing of these 60 days goes.
    let out = h.run(&["purge", "--agent", "claude", "--json", "--yes"]);
    assert_eq!(out.status.code(), Some(1), "nothing to purge");
    let plan: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(plan["policy"]["keep"], 1000);
    assert_eq!(plan["policy"]["max_age_days"], 90.0);
    assert_eq!(state(&h.home), before);
    assert_eq!(h.json(&["trash", "--json"]), Value::Array(Vec::new()));
}

#[test]
fn the_preview_says_which_kept_sessions_the_agent_deletes_by_itself() {
    let h = Home::new();
    // Claude Code deleting after a day: every session it has is due
    // within the week, each kept by a purge that keeps everything.
    std::fs::write(
        h.home.join(".claude/settings.json"),
        r#"{"cleanupPeriodDays": 1}"#,
    )
    .unwrap();
    let keep_all = ["--keep", "1000", "--max-age", "3650d", "--dry-run"];
    let plan = nothing_to_purge(
        &h,
        &[&["purge", "--agent", "claude"][..], &keep_all, &["--json"]].concat(),
    );
    assert!(plan["remove"].as_array().unwrap().is_empty(), "{plan}");
    let listed = h.json(&["--agent", "claude", "list", "--json"]);
    let healthy: Vec<&Value> = listed
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["error"].is_null())
        .collect();
    for r in &healthy {
        let row = plan["keep"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["id"] == r["id"])
            .unwrap();
        // The same moment the list gives, a day after the file changed.
        assert_eq!(row["agent_deletes_at"], r["agent_deletes_at"], "{row}");
        let at = row["agent_deletes_at"].as_f64().unwrap();
        let from = super::modified(Path::new(r["path"].as_str().unwrap()));
        assert!((at - from - 86_400.0).abs() < 1.0, "{row}");
    }
    let rule = plan["agent_cleanup"].as_str().unwrap();
    assert!(rule.contains("cleanupPeriodDays"), "{rule}");
    let out = h.run(&[&["purge", "--agent", "claude"][..], &keep_all].concat());
    let text = String::from_utf8(out.stdout).unwrap();
    let named: Vec<&str> = text.lines().filter(|l| l.starts_with("cleanup ")).collect();
    assert_eq!(named.len(), healthy.len(), "{text}");
    assert!(
        named
            .iter()
            .all(|l| l.contains("kept here, but Claude Code deletes it")),
        "{text}"
    );
    assert!(
        text.contains("archive --agent claude --due-within 7d"),
        "{text}"
    );
    // Codex has no cleanup of its own: nothing said.
    let plan = nothing_to_purge(
        &h,
        &[&["purge", "--agent", "codex"][..], &keep_all, &["--json"]].concat(),
    );
    assert!(plan["agent_cleanup"].is_null(), "{plan}");
    assert!(
        plan["keep"]
            .as_array()
            .unwrap()
            .iter()
            .all(|k| k["agent_deletes_at"].is_null())
    );
}

/// The output of a purge `args` that finds nothing to move (exit 1, its
/// plan printed all the same).
fn nothing_to_purge(h: &Home, args: &[&str]) -> Value {
    let out = h.run(args);
    assert_eq!(out.status.code(), Some(1), "{args:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}
