//! Concurrent writers: a separate process plays the agent (tests/agent_sim.py,
//! appending messages, tool calls and their results, and touching meta.json
//! under the session lock) while the CLI trims (by window, by dropping the
//! newest message, by clearing big tool results), touches and purges the
//! same store. Each trim's JSON is checked against the fork it wrote (what
//! it kept is there, what it dropped is not). Afterwards every message the
//! agent appended is in the active context (itself, or as its cleared
//! copy) or was reported dropped by a trim: a message left behind in a
//! parent that a trim forked from without it (a lost update) counts as
//! lost. Every fork is recorded in its parent's `children`, and every file
//! parses. Rounds: LOKI_STRESS_ROUNDS, else 500 under CI (`common::sized`), 60 in a
//! local run.

mod agents;

use crate::common::*;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::{Command, Stdio};

fn rounds() -> usize {
    std::env::var("LOKI_STRESS_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or_else(|| crate::common::sized(500, 60))
}

fn read_json(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("{} does not parse: {e}", path.display()))
}

/// The message ids of context `id`.
fn context_messages(memory: &Path, id: &str) -> HashSet<String> {
    let ctx = read_json(&memory.join(format!("{id}.json")));
    ctx["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect()
}

/// What the trims said they did: the ids they dropped, and the copies
/// their clears made (new id to the id cleared).
#[derive(Default)]
struct Ledger {
    dropped: HashSet<String>,
    copies: HashMap<String, String>,
    checked: usize,
}

impl Ledger {
    /// Checks a trim's JSON against the fork it wrote, and records it.
    fn record(&mut self, answer: &Value, memory: &Path) {
        if answer["changed"] != true {
            return;
        }
        let child = answer["new_context_id"].as_str().expect("a fork's id");
        let held = context_messages(memory, child);
        let mut copies: HashMap<String, String> = HashMap::new();
        for c in answer["cleared"].as_array().into_iter().flatten() {
            let (id, new) = (c["id"].as_str().unwrap(), c["new_id"].as_str().unwrap());
            copies.insert(id.to_string(), new.to_string());
            self.copies.insert(new.to_string(), id.to_string());
        }
        let ids = |key: &str| -> Vec<String> {
            (answer[key].as_array().into_iter().flatten())
                .map(|v| v.as_str().unwrap().to_string())
                .collect()
        };
        for kept in ids("kept_message_ids") {
            let want = copies.get(&kept).unwrap_or(&kept);
            assert!(
                held.contains(want),
                "the trim kept {kept}, its fork {child} lacks it"
            );
        }
        let partners = (answer["also_dropped"].as_array().into_iter().flatten())
            .map(|p| p["id"].as_str().unwrap().to_string());
        for dropped in ids("dropped_message_ids").into_iter().chain(partners) {
            assert!(
                !held.contains(&dropped),
                "the trim dropped {dropped}, its fork {child} holds it"
            );
            self.dropped.insert(dropped);
        }
        self.checked += 1;
    }

    /// The message `id` stands for: the one it is a cleared copy of (of a copy...).
    fn original<'a>(&'a self, mut id: &'a str) -> &'a str {
        while let Some(from) = self.copies.get(id) {
            id = from;
        }
        id
    }
}

/// Every visible JSON file under `dir` parses; returns how many there were.
fn all_json_parses(dir: &Path) -> usize {
    let mut count = 0;
    for (path, bytes) in snapshot(dir) {
        let hidden = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if path.extension().is_some_and(|e| e == "json") && !hidden && bytes != b"<dir>" {
            serde_json::from_slice::<Value>(&bytes)
                .unwrap_or_else(|e| panic!("{} is torn: {e}", path.display()));
            count += 1;
        }
    }
    count
}

#[test]
fn an_agent_and_the_cli_write_the_same_session_without_losing_anything() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let live = new_session(root, "the live session an agent works in");
    // Stale sessions for the purges to find.
    for i in 0..20 {
        let id = new_session(root, &format!("old work {i}"));
        age_session(root, &id, 45.0);
    }
    let dir = sessions(root).join(&live);
    let log = tmp.path().join("agent.log");
    let rounds = rounds();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/agent_sim.py");
    let agent = Command::new("python3")
        .arg(script)
        .arg(&dir)
        .arg((rounds * 2).to_string())
        .arg(&log)
        // Paced to append all through the CLI's rounds (each takes tens of
        // milliseconds), so every kind of edit meets appends in flight.
        .arg("0.06")
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs the agent simulator");

    let mut outcomes: HashMap<&str, usize> = HashMap::new();
    let mut ledger = Ledger::default();
    for round in 0..rounds {
        let newest;
        let (what, args): (&str, Vec<&str>) = match round % 5 {
            0 => (
                "trim",
                vec!["trim", &live, "--keep-messages", "5", "--json"],
            ),
            1 => {
                // Drop the newest message the CLI sees (the agent appends meanwhile).
                newest = newest_message(root, &live);
                match &newest {
                    Some(id) => (
                        "drop",
                        vec!["trim", &live, "--drop", id, "--with-pairs", "--json"],
                    ),
                    None => ("touch", vec!["resume", &live, "--print", "id"]),
                }
            }
            2 => (
                "clear",
                vec!["trim", &live, "--clear-tool-results-over", "50", "--json"],
            ),
            3 => ("touch", vec!["resume", &live, "--print", "id"]),
            _ => ("purge", vec!["purge", "--yes", "--json"]),
        };
        let out = run(root, &args);
        if matches!(what, "trim" | "drop" | "clear") && out.status.code() == Some(0) {
            let answer: Value = serde_json::from_slice(&out.stdout)
                .unwrap_or_else(|e| panic!("{what}: not JSON ({e})"));
            ledger.record(&answer, &dir.join("memory"));
        }
        match out.status.code() {
            Some(0) => *outcomes.entry(what).or_default() += 1,
            // trim with nothing to drop, purge with nothing stale: "nothing to do"
            Some(1) => *outcomes.entry("nothing to do").or_default() += 1,
            other => panic!(
                "{what} failed ({other:?}): {}",
                String::from_utf8_lossy(&out.stderr)
            ),
        }
    }
    let status = agent.wait_with_output().unwrap();
    assert!(
        status.status.success(),
        "agent: {}",
        String::from_utf8_lossy(&status.stderr)
    );

    let appended: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(appended.len(), rounds * 2);
    let memory = dir.join("memory");
    let session = read_json(&memory.join("session.json"));
    let active = context_messages(&memory, session["active_context_id"].as_str().unwrap());
    let accounted: HashSet<&str> = (active.iter().chain(&ledger.dropped))
        .map(|id| ledger.original(id))
        .collect();
    let lost: Vec<&String> = appended
        .iter()
        .filter(|id| !accounted.contains(id.as_str()))
        .collect();
    assert!(
        lost.is_empty(),
        "{} appended messages are neither in the active context nor reported dropped: {:?}",
        lost.len(),
        &lost[..lost.len().min(5)]
    );
    let reachable = active.len();

    // Every fork is recorded in its parent (no lost update of `children`).
    for entry in std::fs::read_dir(&memory).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name == "session.json" || name.starts_with('.') {
            continue;
        }
        let ctx = read_json(&path);
        if let Some(origin) = ctx["origin_context_id"].as_str() {
            let parent = read_json(&memory.join(format!("{origin}.json")));
            let id = ctx["id"].as_str().unwrap();
            assert!(
                parent["children"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|c| c == id),
                "{id} missing from {origin}"
            );
        }
    }
    let files = all_json_parses(root);
    assert!(
        sessions(root).join(&live).exists(),
        "the live session was never purged"
    );
    eprintln!(
        "{rounds} CLI rounds ({outcomes:?}, {} trims checked against their forks) against {} agent appends; {reachable} messages in the active context, none lost; {files} files parse",
        ledger.checked,
        appended.len(),
    );
    for (what, least) in [
        ("trim", rounds / 10),
        ("drop", rounds / 20),
        ("clear", rounds / 50),
    ] {
        assert!(
            outcomes.get(what).copied().unwrap_or(0) > least,
            "{what}s really happened: {outcomes:?}"
        );
    }
}

/// The id of the last message of the live session's active context, read
/// from its files (the sessions `new` makes have no special messages).
fn newest_message(root: &Path, id: &str) -> Option<String> {
    let memory = sessions(root).join(id).join("memory");
    let session = read_json(&memory.join("session.json"));
    let active = session["active_context_id"].as_str()?;
    let ctx = read_json(&memory.join(format!("{active}.json")));
    ctx["messages"].as_array()?.last()?["id"]
        .as_str()
        .map(str::to_string)
}
