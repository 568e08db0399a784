//! Another agent appending to its session while we fork or delete it:
//! nothing is lost. While the agent holds the file open, a fork and a
//! delete are refused ("has it open"). While it opens the file for each
//! write (as Claude Code does), a fork is either refused (the agent wrote
//! while it was being made, or had it open right then) or holds every line
//! written before it began. The original keeps every line the agent wrote,
//! in order.

use crate::common::*;
use loki_sessions::demo::agents::{self, AgentsSpec};
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The uuid of the last line of `path` that has one.
fn last_uuid(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find_map(|v| v["uuid"].as_str().map(str::to_string))
        .unwrap()
}

/// How the agent holds its session file.
#[derive(Clone, Copy, PartialEq)]
enum Holds {
    /// Open for the whole run.
    Open,
    /// Opened for each line, as Claude Code appends.
    PerWrite,
}

/// Appends chained user lines to `path`, numbered from `from`, one `write`
/// each, until `stop`; returns the number after the last.
fn append_until(
    path: PathBuf,
    session: String,
    holds: Holds,
    from: usize,
    stop: Arc<AtomicBool>,
) -> usize {
    let mut parent = last_uuid(&path);
    let open = || std::fs::File::options().append(true).open(&path).unwrap();
    let mut held = (holds == Holds::Open).then(open);
    let mut n = from;
    while !stop.load(Ordering::Relaxed) {
        let uuid = format!("00000000-0000-4000-8000-{n:012}");
        let line = json!({"parentUuid": parent, "isSidechain": false, "type": "user",
            "sessionId": session, "uuid": uuid, "timestamp": "2026-11-30T10:00:00.000Z",
            "message": {"role": "user", "content": format!("appended {n}")}});
        let mut bytes = serde_json::to_vec(&line).unwrap();
        bytes.push(b'\n');
        match held.as_mut() {
            Some(file) => file.write_all(&bytes).unwrap(),
            None => open().write_all(&bytes).unwrap(),
        }
        parent = uuid;
        n += 1;
        // In bursts, as an agent writes a turn: some forks fall between.
        let pause = if n.is_multiple_of(4) { 150 } else { 2 };
        std::thread::sleep(std::time::Duration::from_millis(pause));
    }
    n
}

#[test]
fn a_fork_or_a_delete_while_the_agent_appends_loses_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let made = agents::generate(&home, &AgentsSpec::fixtures(1.79e9)).unwrap();
    let id = made.claude_rewound.clone().unwrap();
    let run = |args: &[&str]| {
        command()
            .at_home(&home)
            .env("XDG_CACHE_HOME", tmp.path().join("cache"))
            .env("XDG_DATA_HOME", tmp.path().join("data"))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let list: Value = serde_json::from_slice(&run(&["list", "--json"]).stdout).unwrap();
    let path = PathBuf::from(
        list.as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id.as_str())
            .unwrap()["path"]
            .as_str()
            .unwrap(),
    );
    let shown: Value = serde_json::from_slice(&run(&["show", &id, "--json"]).stdout).unwrap();
    let first = shown["messages"][0]["id"].as_str().unwrap().to_string();
    let start = |holds: Holds, from: usize| {
        let stop = Arc::new(AtomicBool::new(false));
        let (path, id, flag) = (path.clone(), id.clone(), stop.clone());
        let appender = std::thread::spawn(move || append_until(path, id, holds, from, flag));
        (stop, appender)
    };
    let fork_whole = |out: &std::process::Output, before: &str, written: usize| {
        let done: Value = serde_json::from_slice(&out.stdout).unwrap();
        let file = done["new_session_file"].as_str().unwrap();
        let fork = std::fs::read_to_string(file).unwrap();
        assert!(
            fork.contains(before),
            "the fork holds the line written before it began"
        );
        assert!(fork.matches("\"appended ").count() >= written);
        std::fs::remove_file(file).unwrap();
    };
    let appended_now = || {
        std::fs::read_to_string(&path)
            .unwrap()
            .matches("\"appended ")
            .count()
    };

    // The agent holds the file open: no fork, no delete, nothing written.
    let (stop, appender) = start(Holds::Open, 0);
    for _ in 0..sized(10, 4) {
        for args in [
            vec![
                "trim",
                id.as_str(),
                "--drop",
                &first,
                "--with-pairs",
                "--json",
            ],
            vec!["delete", id.as_str(), "--yes"],
        ] {
            let out = run(&args);
            // A trim is busy (3: try again); a delete is refused with its
            // reason (2), as a purge spares it.
            let busy = if args[0] == "trim" { 3 } else { 2 };
            assert_eq!(out.status.code(), Some(busy), "{args:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains("open"), "{args:?}: {err}");
        }
    }
    stop.store(true, Ordering::Relaxed);
    let next = appender.join().unwrap();

    // It opens the file for each line: forks fall between its bursts.
    let (stop, appender) = start(Holds::PerWrite, next);
    let (mut forked, mut refused) = (0, 0);
    for _ in 0..sized(40, 12) {
        let before = last_uuid(&path);
        let written = appended_now();
        let out = run(&["trim", &id, "--drop", &first, "--with-pairs", "--json"]);
        if out.status.success() {
            fork_whole(&out, &before, written);
            forked += 1;
        } else {
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains("while it was being read") || err.contains(" open ("),
                "{err}"
            );
            refused += 1;
        }
    }
    stop.store(true, Ordering::Relaxed);
    let appended = appender.join().unwrap();
    // The original has every line the agent wrote, once each, in order.
    let text = std::fs::read_to_string(&path).unwrap();
    let seen: Vec<usize> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| {
            v["message"]["content"]
                .as_str()?
                .strip_prefix("appended ")?
                .parse()
                .ok()
        })
        .collect();
    assert_eq!(
        seen,
        (0..appended).collect::<Vec<_>>(),
        "every line, in order"
    );
    eprintln!("{forked} forks made, {refused} refused, {appended} lines appended");
    assert!(forked > 0, "some forks fall between the agent's bursts");
}
