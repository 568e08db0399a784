//! The Claude Code forks we write, read by independent readers: every
//! fork parses in claude-code-log (PyPI, pinned; `.ci/run` installs it,
//! `CLAUDE_CODE_LOG` names its command) with the kept messages and none of
//! the dropped ones, and without a warning its original does not give
//! (no "Orphan node", no extra "roots found"); ccusage (npm, pinned)
//! reports for each fork the usage of the lines it kept.

use super::Home;
use super::usage::ccusage;
use crate::common::Sandboxed;
use serde_json::Value;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// claude-code-log, pinned.
pub(super) const CLAUDE_CODE_LOG_VERSION: &str = "1.7.0";

pub(super) fn claude_code_log() -> Option<PathBuf> {
    let path = PathBuf::from(std::env::var_os("CLAUDE_CODE_LOG")?);
    path.exists().then_some(path)
}

/// claude-code-log's reading of `file`: the uuids of the messages it
/// shows, and the warnings it printed.
pub(super) fn read_with_claude_code_log(
    bin: &Path,
    file: &Path,
    home: &Path,
) -> Result<(HashSet<String>, Vec<String>), String> {
    let out_file = file.with_extension("cclog.json");
    let out = std::process::Command::new(bin)
        .arg("convert")
        .arg(file)
        .arg("-o")
        .arg(&out_file)
        .arg("--no-cache")
        .at_home(home)
        .output()
        .unwrap();
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr));
    }
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let warnings: Vec<String> = text
        .lines()
        .filter(|l| l.contains("WARNING"))
        .map(|l| {
            l.split_once("WARNING:")
                .map_or(l, |(_, w)| w)
                .trim()
                .to_string()
        })
        .collect();
    let doc: Value = serde_json::from_slice(&std::fs::read(&out_file).unwrap()).unwrap();
    std::fs::remove_file(&out_file).unwrap();
    let mut uuids = HashSet::new();
    let mut todo: Vec<&Value> = doc["messages"].as_array().unwrap().iter().collect();
    while let Some(m) = todo.pop() {
        if let Some(u) = m["uuid"].as_str() {
            uuids.insert(u.to_string());
        }
        todo.extend(m["children"].as_array().into_iter().flatten());
    }
    Ok((uuids, warnings))
}

fn kinds(warnings: &[String]) -> HashSet<String> {
    warnings
        .iter()
        .map(|w| {
            if w.starts_with("Orphan node") {
                "Orphan node".into()
            } else if w.contains("roots found") {
                "roots found".into()
            } else {
                w.clone()
            }
        })
        .collect()
}

#[test]
#[ignore = "needs claude-code-log 1.7.0 (PyPI) and ccusage 20.0.24 (npm); .ci/run installs them"]
fn forks_read_in_claude_code_log_and_ccusage_as_their_kept_lines() {
    let Some(cclog) = claude_code_log() else {
        panic!(
            "claude-code-log {CLAUDE_CODE_LOG_VERSION} is not installed: set CLAUDE_CODE_LOG or run .ci/run"
        );
    };
    let Some(ccusage) = ccusage() else {
        panic!("ccusage is not installed: set CCUSAGE or run .ci/run");
    };
    let version = std::process::Command::new(&cclog)
        .arg("--version")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&version.stdout).contains(CLAUDE_CODE_LOG_VERSION));
    let h = Home::new();
    let mut forks = Vec::new();
    for id in &h.made.claude {
        let shown = h.json(&["show", id, "--json"]);
        let ids: Vec<String> = shown["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_str().unwrap().to_string())
            .collect();
        if ids.len() < 4 {
            continue;
        }
        let list = h.json(&["--agent", "claude", "list", "--json"]);
        let row = list
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id.as_str())
            .unwrap();
        let original = PathBuf::from(row["path"].as_str().unwrap());
        // The hostile fixture (bytes that are not UTF-8) it cannot read at
        // all; every other original it reads, and so must it the forks.
        let Ok((original_seen, original_warnings)) =
            read_with_claude_code_log(&cclog, &original, &h.home)
        else {
            assert_eq!(Some(id), h.made.claude_hostile.as_ref());
            continue;
        };
        for (kind, trim) in [
            vec!["--keep-messages", "3"],
            vec!["--drop", ids[1].as_str(), "--with-pairs"],
            vec!["--clear-tool-results-over", "10"],
            vec!["--resumable", "--results-over", "10"],
        ]
        .into_iter()
        .enumerate()
        {
            let mut args = vec!["trim", id.as_str()];
            args.extend(&trim);
            args.push("--json");
            let out = h.run(&args);
            if out.status.code() == Some(1) {
                continue;
            }
            let done: Value = serde_json::from_slice(&out.stdout).unwrap();
            let file = PathBuf::from(done["new_session_file"].as_str().unwrap());
            let (seen, warnings) = read_with_claude_code_log(&cclog, &file, &h.home)
                .unwrap_or_else(|e| {
                    panic!("{trim:?} on {id}: claude-code-log cannot read the fork: {e}")
                });
            let new_kinds = kinds(&warnings);
            let old_kinds = kinds(&original_warnings);
            for k in ["Orphan node", "roots found"] {
                assert!(
                    !new_kinds.contains(k) || old_kinds.contains(k),
                    "{trim:?} on {id}: {warnings:?}"
                );
            }
            assert!(
                new_kinds.is_subset(&old_kinds),
                "{trim:?} on {id}: {warnings:?}"
            );
            for kept in done["kept_message_ids"].as_array().unwrap() {
                // What it shows of the original (a compaction boundary it
                // does not show), it shows of the fork.
                let kept = kept.as_str().unwrap();
                if original_seen.contains(kept) {
                    assert!(seen.contains(kept), "{trim:?} on {id}: {kept} is read");
                }
            }
            for dropped in done["dropped_message_ids"].as_array().unwrap() {
                assert!(
                    !seen.contains(dropped.as_str().unwrap()),
                    "{trim:?}: {dropped} is gone"
                );
            }
            let kept = done["kept_message_ids"].as_array().unwrap();
            let shown = kept
                .iter()
                .filter(|k| seen.contains(k.as_str().unwrap()))
                .count();
            assert!(
                shown * 2 >= kept.len(),
                "{trim:?} on {id}: most kept messages are read"
            );
            forks.push((
                kind,
                done["new_session_id"].as_str().unwrap().to_string(),
                file,
            ));
        }
    }
    assert!(forks.len() >= 8, "{forks:?}");
    // ccusage reads each fork's usage as we do: the usage of its kept
    // lines. It counts a message (by message.id and requestId) once over
    // every file it reads, so a fork is read without its original: one
    // home per kind of trim, holding that kind's forks.
    let ours = h.json(&["--agent", "claude", "list", "--json", "--tokens"]);
    let mut theirs_by_kind = Vec::new();
    for kind in 0..4 {
        let alone = tempfile::tempdir().unwrap();
        for (_, _, file) in forks.iter().filter(|(k, _, _)| *k == kind) {
            let rel = file.strip_prefix(&h.home).unwrap();
            std::fs::create_dir_all(alone.path().join(rel).parent().unwrap()).unwrap();
            std::fs::copy(file, alone.path().join(rel)).unwrap();
        }
        let out = std::process::Command::new(&ccusage)
            .args(["session", "--json", "--offline"])
            .at_home(alone.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        theirs_by_kind.push(serde_json::from_slice::<Value>(&out.stdout).unwrap());
    }
    let mut compared = 0;
    for (kind, fork, _) in &forks {
        let row = ours
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == fork.as_str())
            .unwrap();
        let session = theirs_by_kind[*kind]["session"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["period"].as_str().unwrap().ends_with(fork.as_str()));
        let Some(session) = session else {
            // ccusage leaves out a session that spent nothing.
            let spent: u64 = ["input", "output", "cache_read", "cache_write"]
                .iter()
                .map(|k| row["usage"][k].as_u64().unwrap_or(0))
                .sum();
            assert_eq!(spent, 0, "ccusage has no session {fork}");
            continue;
        };
        compared += 1;
        for (o, t) in [
            ("input", "inputTokens"),
            ("output", "outputTokens"),
            ("cache_read", "cacheReadTokens"),
            ("cache_write", "cacheCreationTokens"),
        ] {
            assert_eq!(row["usage"][o], session[t], "{fork} {o}");
        }
    }
    assert!(
        compared * 2 >= forks.len(),
        "{compared} of {} forks compared",
        forks.len()
    );
}
