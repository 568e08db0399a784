//! Trims of Claude Code and Codex sessions: every kind writes a new
//! session beside the original, which stays byte-identical; the fork is one
//! chain of the kept lines, byte for byte but for `sessionId` and the
//! re-linked `parentUuid`, with no tool pair split; Codex's names its
//! original in `forked_from_id`. Checked through the CLI on the generated
//! fixtures, and as a property over random drops through the store.

use super::Home;
use super::trash::age_files;
use crate::common::sandbox;
use loki_sessions::store::{AgentHomes, Change, Encoding, Mode, Store};
use proptest::prelude::*;
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// Every file under `dir` with its bytes.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let t = e.file_type().unwrap();
            if t.is_dir() {
                todo.push(e.path());
            } else {
                out.insert(e.path(), std::fs::read(e.path()).unwrap());
            }
        }
    }
    out
}

fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .collect()
}

fn parse(line: &[u8]) -> Option<Value> {
    serde_json::from_slice(line).ok()
}

/// What a Claude Code fork must be, against its original: every line with
/// a `sessionId` has the new one; every kept line is an original line byte
/// for byte once its `sessionId` and `parentUuid` are put back (a cleared
/// line: the same JSON but for its tool results); no `parentUuid` names a
/// line that is not there; every tool result has its call and every call
/// its result; the lines are in the original's order.
fn check_claude_fork(original: &[u8], fork: &[u8], new_id: &str) {
    let old_lines = lines(original);
    let old_id = old_lines
        .iter()
        .filter_map(|l| parse(l))
        .find_map(|v| v["sessionId"].as_str().map(str::to_string))
        .unwrap();
    let mut fork_lines = lines(fork);
    let title = fork_lines.pop().expect("a fork ends with its title");
    check_title_line(title, new_id, "custom-title");
    let uuids: HashSet<String> = fork_lines
        .iter()
        .filter_map(|l| parse(l))
        .filter_map(|v| v["uuid"].as_str().map(str::to_string))
        .collect();
    let (mut uses, mut results) = (HashSet::new(), HashSet::new());
    let mut last = None;
    let mut roots = HashSet::new();
    for line in &fork_lines {
        let Some(v) = parse(line) else {
            panic!("a damaged line stays in the original only: {line:?}");
        };
        if v.get("sessionId").is_some() {
            assert_eq!(v["sessionId"], new_id, "{}", String::from_utf8_lossy(line));
        }
        if let Some(p) = v["parentUuid"].as_str() {
            assert!(uuids.contains(p), "orphan: parent {p} is not in the fork");
        }
        for block in v["message"]["content"].as_array().into_iter().flatten() {
            match block["type"].as_str() {
                Some("tool_use") if v["isSidechain"] != true => {
                    uses.insert(block["id"].as_str().unwrap().to_string());
                }
                Some("tool_result") if v["isSidechain"] != true => {
                    results.insert(block["tool_use_id"].as_str().unwrap().to_string());
                }
                _ => {}
            }
        }
        // A root: a message line with no parent (a replayed copy of one,
        // written again on resume, is the same line).
        let message = v["type"] == "user" || v["type"] == "assistant";
        if message && v["parentUuid"].is_null() && v["isSidechain"] != true {
            roots.insert(v["uuid"].to_string());
        }
        // Each line with a uuid says where it came from, as Claude Code's
        // `/branch` writes it (its last field, added).
        let mut text = String::from_utf8(line.to_vec()).unwrap();
        if let Some(uuid) = v["uuid"].as_str() {
            let from = serde_json::json!({"sessionId": old_id, "messageUuid": uuid});
            assert_eq!(v["forkedFrom"], from, "{text}");
            let added = format!(",\"forkedFrom\":{from}}}");
            if let Some(rest) = text.strip_suffix(&added) {
                text = format!("{rest}}}");
            }
        }
        // The original line it came from, with the new session id and
        // parent written in: the fork's line byte for byte.
        let with_id = |o: &str| {
            o.replace(
                &format!("\"sessionId\":\"{old_id}\""),
                &format!("\"sessionId\":\"{new_id}\""),
            )
        };
        let from = last.map_or(0, |l: usize| l + 1);
        let found = old_lines.iter().enumerate().skip(from).find_map(|(i, o)| {
            let o = String::from_utf8_lossy(o);
            let ov = parse(o.as_bytes())?;
            if v["uuid"].is_string() && ov["uuid"] == v["uuid"] {
                let relinked = with_id(&o).replacen(
                    &format!("\"parentUuid\":{}", ov["parentUuid"]),
                    &format!("\"parentUuid\":{}", v["parentUuid"]),
                    1,
                );
                (relinked == text).then_some(i)
            } else {
                (with_id(&o) == text).then_some(i)
            }
        });
        match found {
            Some(at) => {
                assert!(last.is_none_or(|l| at > l), "lines keep their order");
                last = Some(at);
            }
            None => {
                // A cleared line: the same line but for tool results, or
                // for media a fix for resuming named.
                let cleared = text.contains("[tool result cleared: ")
                    || text.contains(" removed: ")
                    || text.contains(" removed]");
                assert!(cleared, "a line not in the original: {text}");
            }
        }
    }
    assert!(roots.len() <= 1, "one chain: roots {roots:?}");
    assert_eq!(uses, results, "no tool pair is split");
}

/// A fork's last line: its title as the agent records one the person set
/// (`kind`), ending in "(copy)" or "(resumable)", for the new session,
/// and the time it is dated (its other lines keep their times).
pub(super) fn check_title_line(
    line: &[u8],
    new_id: &str,
    kind: &str,
) -> (String, std::time::SystemTime) {
    let v = parse(line).expect("the title line is JSON");
    let (title, id) = if kind == "custom-title" {
        assert_eq!(v["type"], "custom-title", "{v}");
        (v["customTitle"].clone(), v["sessionId"].clone())
    } else {
        assert_eq!(v["type"], "event_msg", "{v}");
        assert_eq!(v["payload"]["type"], "thread_name_updated", "{v}");
        (
            v["payload"]["thread_name"].clone(),
            v["payload"]["thread_id"].clone(),
        )
    };
    assert_eq!(id, new_id, "{v}");
    let title = title.as_str().unwrap().to_string();
    assert!(
        title.ends_with(" (copy)") || title.ends_with(" (resumable)"),
        "{title}"
    );
    let at = humantime::parse_rfc3339(v["timestamp"].as_str().unwrap()).unwrap();
    (title, at)
}

/// True for a time within the last ten minutes.
pub(super) fn just_now(at: std::time::SystemTime) -> bool {
    std::time::SystemTime::now()
        .duration_since(at)
        .is_ok_and(|a| a.as_secs() < 600)
}

fn main_file(h: &Home, id: &str) -> PathBuf {
    let list = h.json(&["--agent", "claude", "--agent", "codex", "list", "--json"]);
    let row = list
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .unwrap();
    PathBuf::from(row["path"].as_str().unwrap())
}

#[test]
fn every_trim_of_a_claude_session_writes_a_checked_fork_and_leaves_the_original() {
    let h = Home::new();
    // A day old: the purge below may take the originals, never a fork.
    age_files(&h.home);
    let claude = h.home.join(".claude");
    let (mut checked, mut unchanged) = (0, Vec::new());
    for id in &h.made.claude {
        let shown = h.json(&["show", id, "--json"]);
        let ids: Vec<&str> = shown["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_str().unwrap())
            .collect();
        assert!(ids.len() >= 4, "{id}: a fixture long enough to trim");
        let original_path = main_file(&h, id);
        let trims: Vec<Vec<&str>> = vec![
            vec!["--keep-messages", "3"],
            vec!["--max-tokens", "400"],
            vec!["--drop", ids[1], "--with-pairs"],
            vec!["--clear-tool-results-over", "10"],
            vec!["--resumable", "--results-over", "10"],
        ];
        for trim in trims {
            let before = tree(&claude);
            let mut args = vec!["trim", id.as_str()];
            args.extend(&trim);
            let mut dry = args.clone();
            dry.extend(["--dry-run", "--json"]);
            let out = h.run(&dry);
            if out.status.code() == Some(1) {
                unchanged.push(format!("{id} {trim:?}"));
                continue; // nothing to do on this one
            }
            let preview: Value = serde_json::from_slice(&out.stdout).unwrap();
            for key in [
                "changed",
                "kept_message_ids",
                "dropped_message_ids",
                "cleared_message_ids",
                "tokens_before",
                "tokens_after",
                "bytes_before",
                "bytes_after",
                "new_session_id",
            ] {
                assert!(preview.get(key).is_some(), "{key} in {preview}");
            }
            assert_eq!(tree(&claude), before, "a dry run writes nothing");
            args.push("--json");
            let done = h.json(&args);
            let new_id = done["new_session_id"].as_str().unwrap();
            let new_file = PathBuf::from(done["new_session_file"].as_str().unwrap());
            assert_eq!(new_file.parent(), original_path.parent(), "beside it");
            assert_eq!(new_file.file_name().unwrap(), &*format!("{new_id}.jsonl"));
            let mut after = tree(&claude);
            let fork = after.remove(&new_file).unwrap();
            assert_eq!(after, before, "{trim:?}: the original is byte-identical");
            assert_eq!(done["bytes_after"], fork.len() as u64);
            assert_eq!(preview["bytes_after"], done["bytes_after"]);
            assert_eq!(preview["kept_message_ids"], done["kept_message_ids"]);
            check_claude_fork(&before[&original_path], &fork, new_id);
            let (title, at) = check_title_line(lines(&fork).pop().unwrap(), new_id, "custom-title");
            assert!(just_now(at), "dated when written");
            let suffix = if trim.contains(&"--resumable") {
                " (resumable)"
            } else {
                " (copy)"
            };
            assert!(title.ends_with(suffix), "{trim:?}: {title}");
            // Listed by the original's name, as used now: no purge of a day
            // or more takes it (its file looks a day old too, so that only
            // its last use, not a recent write, can keep it).
            let listed = h.json(&["list", "--json", "--agent", "claude"]);
            let row = |id: &str| {
                listed
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|r| r["id"] == id)
                    .unwrap()
                    .clone()
            };
            let (copy, original) = (row(new_id), row(id));
            assert_eq!(
                copy["title"].as_str().unwrap(),
                format!("{}{suffix}", original["title"].as_str().unwrap())
            );
            let now = loki_sessions::store::now_seconds();
            assert!(
                now - copy["last_used_at"].as_f64().unwrap() < 600.0,
                "{copy}"
            );
            let day_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(86_400);
            let file = std::fs::File::options().append(true).open(&new_file);
            file.unwrap().set_modified(day_ago).unwrap();
            let plan = h.json(&[
                "purge",
                "--agent",
                "claude",
                "--max-age",
                "1d",
                "--dry-run",
                "--json",
            ]);
            let removed: Vec<&str> = plan["remove"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|r| r["id"].as_str())
                .collect();
            assert!(removed.contains(&id.as_str()), "{plan}");
            assert!(!removed.contains(&new_id), "{plan}");
            // The fork reads back as the kept messages (Claude Code's
            // uuids are kept), and shows as a session of its own.
            let reread = h.json(&["show", new_id, "--json"]);
            let got: Vec<&Value> = reread["messages"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| &m["id"])
                .collect();
            let kept: Vec<&Value> = done["kept_message_ids"]
                .as_array()
                .unwrap()
                .iter()
                .collect();
            if done["cleared_message_ids"].as_array().unwrap().is_empty() {
                assert_eq!(got, kept, "{trim:?}");
            } else {
                assert_eq!(got.len(), kept.len());
            }
            assert_eq!(reread["total_tokens"], done["tokens_after"], "{trim:?}");
            // The fork shows as a fork of its original: diff names what went.
            if done["cleared_message_ids"].as_array().unwrap().is_empty() {
                let diff = h.json(&["diff", new_id, "--json"]);
                let gone: Vec<&Value> = diff["dropped"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| &m["id"])
                    .collect();
                let dropped: Vec<&Value> = done["dropped_message_ids"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .collect();
                assert_eq!(gone, dropped, "{trim:?}: diff");
                assert_eq!(diff["added"], Value::Array(Vec::new()));
            }
            std::fs::remove_file(&new_file).unwrap();
            checked += 1;
        }
    }
    // Keeping 3 messages or dropping one always forks; the short fixture
    // with no tool result has nothing to do for the other three trims.
    assert_eq!(
        checked,
        5 * h.made.claude.len() - 3,
        "forks checked; nothing to do: {unchanged:?}"
    );
}

#[test]
fn a_codex_fork_is_a_new_rollout_of_today_naming_its_original() {
    let h = Home::new();
    let codex = h.home.join(".codex");
    let mut forked = 0;
    for id in &h.made.codex {
        let before = tree(&codex);
        // A dry run says where the fork would go: today's folder, as the write.
        let dry = h.json(&["trim", id, "--keep-messages", "2", "--dry-run", "--json"]);
        let planned = PathBuf::from(dry["planned_session_file"].as_str().unwrap());
        assert_eq!(tree(&codex), before, "a dry run writes nothing");
        let done = h.json(&["trim", id, "--keep-messages", "2", "--json"]);
        let new_id = done["new_session_id"].as_str().unwrap();
        let new_file = PathBuf::from(done["new_session_file"].as_str().unwrap());
        assert_eq!(planned.parent(), new_file.parent(), "{planned:?}");
        assert!(done["planned_session_file"].is_null());
        let name = new_file.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with("rollout-") && name.ends_with(&format!("-{new_id}.jsonl")));
        assert!(new_file.starts_with(codex.join("sessions")));
        let mut after = tree(&codex);
        let fork = after.remove(&new_file).unwrap();
        assert_eq!(after, before, "the original is byte-identical");
        let meta = parse(lines(&fork)[0]).unwrap();
        assert_eq!(meta["type"], "session_meta");
        assert_eq!(meta["payload"]["id"], new_id);
        assert_eq!(meta["payload"]["forked_from_id"], id.as_str());
        let original = &before[&main_file(&h, id)];
        let old: HashSet<&[u8]> = lines(original).into_iter().collect();
        let mut kept = lines(&fork);
        let (title, at) = check_title_line(kept.pop().unwrap(), new_id, "thread_name");
        assert!(just_now(at), "dated when written");
        for line in &kept[1..] {
            assert!(old.contains(line), "kept byte for byte");
        }
        // Listed by the original's name, and as written now.
        let listed = h.json(&["list", "--json", "--agent", "codex"]);
        let row = listed
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == new_id)
            .unwrap();
        assert_eq!(row["title"], title.as_str(), "{row}");
        let reread = h.json(&["show", new_id, "--json"]);
        assert_eq!(
            reread["messages"].as_array().unwrap().len(),
            done["kept_message_ids"].as_array().unwrap().len()
        );
        std::fs::remove_file(&new_file).unwrap();
        forked += 1;
    }
    assert!(
        forked > 0 && forked == h.made.codex.len(),
        "every rollout forked and checked: {forked}"
    );
}

#[test]
fn a_gemini_session_is_not_trimmed_and_says_why() {
    let h = Home::new();
    let gemini = h.home.join(".gemini");
    let before = tree(&gemini);
    let out = h.run(&["trim", &h.made.gemini[0], "--keep-messages", "1"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("Gemini CLI sessions cannot be trimmed"),
        "{err}"
    );
    assert_eq!(tree(&gemini), before);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Any set of drops (with their pairs) leaves one unbroken chain and
    /// no split pair; the original stays as it was.
    #[test]
    fn any_drops_leave_one_chain_and_no_split_pair(picks in prop::collection::vec(any::<u16>(), 1..6), which in any::<u8>()) {
        let h = Home::new();
        let store = sandbox::store(
            Store::peteos_folder(&h.home.join("none"))
                .primary_optional(true)
                .with_agents(&AgentHomes::under(&h.home)),
        );
        let id = &h.made.claude[which as usize % h.made.claude.len()];
        let target = store.locate(id).unwrap();
        let context = store.active_context(&target).unwrap().unwrap();
        let messages: Vec<String> = context.messages().map(|m| m.id().to_string()).collect();
        let chosen: Vec<String> = picks.iter().map(|p| messages[*p as usize % messages.len()].clone()).collect();
        let original = std::fs::read(&target.record.path).unwrap();
        let request = Change::Drop { messages: chosen.clone(), with_pairs: true };
        let edited = store.change(&target, &request, Encoding::Cl100kBase, Mode::Write { expected: None }, 1.8e9);
        prop_assert_eq!(&std::fs::read(&target.record.path).unwrap(), &original);
        let outcome = match edited {
            Ok(outcome) => outcome,
            // The one refusal a drop may meet: a message every context
            // keeps (a system prompt); it writes nothing.
            Err(e) if e.to_string().contains("which every context keeps") => return Ok(()),
            Err(e) => return Err(TestCaseError::fail(format!("{chosen:?}: {e}"))),
        };
        let Some(fork) = outcome.fork else {
            return Err(TestCaseError::fail("a drop from a Claude Code session writes a fork"));
        };
        let bytes = std::fs::read(&fork.path).unwrap();
        check_claude_fork(&original, &bytes, &fork.new_session_id);
    }
}

#[test]
fn a_window_that_would_part_a_tool_pair_says_how_many_more_it_drops() {
    let h = Home::new();
    let mut said = 0;
    for id in &h.made.claude {
        for keep in 1..=8u64 {
            let keep_text = keep.to_string();
            let out = h.run(&[
                "trim",
                id,
                "--keep-messages",
                &keep_text,
                "--dry-run",
                "--json",
            ]);
            let Ok(plan) = serde_json::from_slice::<Value>(&out.stdout) else {
                continue;
            };
            if plan["changed"] != true {
                continue;
            }
            let kept = plan["kept_message_ids"].as_array().unwrap().len() as u64;
            let warning = plan["warnings"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(Value::as_str)
                .find(|w| w.contains("pairs with"));
            match warning {
                None => assert_eq!(kept, keep, "{id} keep {keep}: {plan}"),
                Some(w) => {
                    let more: u64 = w.split(' ').next().unwrap().parse().unwrap();
                    assert_eq!(kept + more, keep, "{id} keep {keep}: {w}");
                    said += 1;
                }
            }
        }
    }
    assert!(said > 0, "some window parts a tool pair in the fixtures");
}

#[test]
fn a_session_its_agent_holds_open_is_not_forked_a_dry_run_says_so_too() {
    let h = Home::new();
    let id = h.made.claude[0].clone();
    let path = main_file(&h, &id);
    // An agent running on it: a process with the file open.
    let mut holder = std::process::Command::new("sh")
        .arg("-c")
        .arg("exec 3<\"$1\"; exec sleep 30")
        .arg("sh")
        .arg(&path)
        .spawn()
        .unwrap();
    let fd = PathBuf::from(format!("/proc/{}/fd/3", holder.id()));
    for _ in 0..200 {
        if std::fs::read_link(&fd).is_ok_and(|p| p == path) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let before = tree(&h.home);
    let mut refused = Vec::new();
    for args in [
        vec!["trim", id.as_str(), "--keep-messages", "2", "--dry-run"],
        vec!["trim", id.as_str(), "--keep-messages", "2"],
        vec!["trim", id.as_str(), "--resumable"],
    ] {
        let out = h.run(&args);
        refused.push((
            args,
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ));
    }
    holder.kill().unwrap();
    holder.wait().unwrap();
    for (args, code, err) in refused {
        assert_eq!(code, Some(3), "busy, to try again: {args:?}: {err}");
        assert!(
            err.contains(&format!("process {}", holder.id())),
            "{args:?}: {err}"
        );
    }
    assert_eq!(tree(&h.home), before, "nothing written");
    // Closed: the same trim writes its fork.
    let out = h.run(&["trim", &id, "--keep-messages", "2"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_ne!(tree(&h.home), before);
}

#[test]
fn a_session_with_crlf_endings_and_no_last_newline_is_read_and_forked_in_its_endings() {
    let h = Home::new();
    let id = h.made.claude[0].clone();
    let path = main_file(&h, &id);
    let shown = h.json(&["show", &id, "--json"]);
    let messages = shown["messages"].as_array().unwrap().len();
    // The same lines, each ended by CRLF, the last by nothing, the file
    // untouched for an hour (an editor's copy, say).
    let text = std::fs::read_to_string(&path).unwrap();
    let crlf = text.trim_end_matches('\n').replace('\n', "\r\n")
        + &format!(
            "\r\n{{\"type\":\"custom-title\",\"customTitle\":\"Kept at the end\",\"sessionId\":\"{id}\"}}"
        );
    std::fs::write(&path, &crlf).unwrap();
    let fresh = h.json(&["show", &id, "--json"]);
    assert!(
        fresh.to_string().contains("still being written"),
        "just written, the last line is not yet read: {}",
        fresh["notes"]
    );
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .append(true)
        .open(&path)
        .unwrap()
        .set_modified(hour_ago)
        .unwrap();
    let shown = h.json(&["show", &id, "--json"]);
    assert_eq!(
        shown["messages"].as_array().unwrap().len(),
        messages,
        "every message read"
    );
    assert!(
        !shown.to_string().contains("still being written"),
        "quiet, the last line is read: {}",
        shown["notes"]
    );
    let plan = h.run(&["trim", &id, "--keep-messages", "2", "--dry-run"]);
    assert!(
        plan.status.success(),
        "{}",
        String::from_utf8_lossy(&plan.stderr)
    );
    let done = h.json(&["trim", &id, "--keep-messages", "2", "--json"]);
    let fork = std::fs::read(done["new_session_file"].as_str().unwrap()).unwrap();
    assert!(fork.ends_with(b"\r\n"));
    let bare = fork
        .iter()
        .enumerate()
        .filter(|(i, b)| **b == b'\n' && (*i == 0 || fork[i - 1] != b'\r'))
        .count();
    assert_eq!(bare, 0, "every line of the fork ends as the original's do");
    assert!(
        String::from_utf8_lossy(&fork).contains("Kept at the end"),
        "the last line, which had no newline, is in the fork"
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        crlf,
        "the original as it was"
    );
}
