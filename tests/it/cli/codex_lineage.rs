//! Codex 0.154+ forks by reference, as Codex writes them: a paginated
//! rollout whose `session_meta` names a `history_base` in its parent's
//! rollout. The fork is shown with its inherited history; the parent is
//! not deleted or purged while the fork needs it; a cycle or a missing
//! parent is said, never followed; a compressed (`.jsonl.zst`) archived
//! parent is listed and read. Rollouts written here from openai/codex's
//! `HistoryPosition` and `RolloutLine` (no fixture of theirs copied).

use crate::common::*;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Output;

const PARENT: &str = "11111111-1111-4111-8111-111111111111";
const CHILD: &str = "22222222-2222-4222-8222-222222222222";

/// A Codex home under a home folder of its own.
struct Codex {
    _tmp: tempfile::TempDir,
    home: PathBuf,
}

impl Codex {
    fn new() -> Codex {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        std::fs::create_dir_all(home.join(".codex/sessions/2026/07/01")).unwrap();
        std::fs::create_dir_all(home.join(".codex/archived_sessions")).unwrap();
        Codex { _tmp: tmp, home }
    }

    fn day(&self) -> PathBuf {
        self.home.join(".codex/sessions/2026/07/01")
    }

    fn run(&self, args: &[&str]) -> Output {
        command()
            .env("HOME", &self.home)
            .env("CODEX_HOME", self.home.join(".codex"))
            .env("XDG_CACHE_HOME", self.home.join("cache"))
            .env("XDG_DATA_HOME", self.home.join("data"))
            .args(["--agent", "codex"])
            .args(args)
            .output()
            .unwrap()
    }

    fn json(&self, args: &[&str]) -> Value {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }
}

/// One rollout line, with its ordinal.
fn line(ordinal: u64, kind: &str, payload: Value) -> String {
    json!({"timestamp": "2026-07-01T10:00:00.000Z", "ordinal": ordinal, "type": kind, "payload": payload})
        .to_string()
        + "\n"
}

fn meta(id: &str, base: Option<(&str, u64, u64)>) -> Value {
    let mut meta = json!({"session_id": id, "id": id, "timestamp": "2026-07-01T10:00:00Z",
        "cwd": "/home/dev/src/app", "originator": "codex_cli_rs", "cli_version": "0.160.0",
        "source": "cli", "model_provider": "openai", "history_mode": "paginated"});
    if let Some((parent, ordinal, byte)) = base {
        meta["forked_from_id"] = json!(parent);
        meta["history_base"] =
            json!({"thread_id": parent, "end_ordinal_exclusive": ordinal, "end_byte_offset": byte});
    }
    meta
}

fn said(role: &str, text: &str) -> Value {
    let kind = if role == "user" {
        "input_text"
    } else {
        "output_text"
    };
    json!({"type": "message", "role": role, "content": [{"type": kind, "text": text}]})
}

/// The parent: its meta, a question, an answer, a later question. Returns
/// its file and the byte offset just after the answer.
fn parent(codex: &Codex, dir: &Path) -> (PathBuf, u64) {
    let mut text = line(0, "session_meta", meta(PARENT, None));
    text += &line(
        1,
        "response_item",
        said("user", "what does the cron job do"),
    );
    text += &line(2, "response_item", said("assistant", "it rotates the logs"));
    let cut = text.len() as u64;
    text += &line(
        3,
        "response_item",
        said("user", "a later question, not inherited"),
    );
    let path = dir.join(format!("rollout-2026-07-01T10-00-00-{PARENT}.jsonl"));
    std::fs::write(&path, text).unwrap();
    let _ = codex;
    (path, cut)
}

/// The child: its own meta (based on the parent's first 3 records) and one line.
fn child(codex: &Codex, base: (&str, u64, u64)) -> PathBuf {
    let mut text = line(base.1, "session_meta", meta(CHILD, Some(base)));
    text += &line(base.1 + 1, "response_item", said("user", "branch here"));
    let path = codex
        .day()
        .join(format!("rollout-2026-07-02T09-00-00-{CHILD}.jsonl"));
    std::fs::write(&path, text).unwrap();
    path
}

fn texts(shown: &Value) -> Vec<String> {
    shown["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn a_fork_by_reference_shows_its_inherited_history_and_keeps_its_parent() {
    let codex = Codex::new();
    let (parent_file, cut) = parent(&codex, &codex.day());
    let child_file = child(&codex, (PARENT, 3, cut));
    let shown = codex.json(&["show", CHILD, "--json"]);
    let said = texts(&shown);
    assert_eq!(
        said.len(),
        3,
        "two inherited messages and its own: {said:?}"
    );
    assert!(said[0].contains("what does the cron job do"), "{said:?}");
    assert!(said[1].contains("it rotates the logs"), "{said:?}");
    assert!(said[2].contains("branch here"), "{said:?}");
    assert!(!said.iter().any(|s| s.contains("not inherited")));
    assert!(shown.to_string().contains("fork by reference"), "said");
    // The parent stays while the fork reads from it: a delete is refused,
    // naming the fork; a purge spares it with the reason.
    let before = std::fs::read(&parent_file).unwrap();
    let out = codex.run(&["delete", PARENT, "--yes"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("reads its history from it") && err.contains(CHILD),
        "{err}"
    );
    // Both a day old, so that nothing is spared as still being written.
    let day_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(86_400);
    for f in [&parent_file, &child_file] {
        std::fs::File::options()
            .append(true)
            .open(f)
            .unwrap()
            .set_modified(day_ago)
            .unwrap();
    }
    let plan = codex.json(&[
        "purge",
        "--keep",
        "0",
        "--max-age",
        "0d",
        "--dry-run",
        "--json",
    ]);
    let removed: Vec<&Value> = plan["remove"].as_array().unwrap().iter().collect();
    assert!(removed.iter().any(|r| r["id"] == CHILD), "{plan}");
    let kept: Vec<&Value> = plan["keep"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["id"] == PARENT)
        .collect();
    assert_eq!(kept.len(), 1, "{plan}");
    assert!(
        kept[0].to_string().contains("reads its history from it"),
        "{plan}"
    );
    assert_eq!(std::fs::read(&parent_file).unwrap(), before);
    // Trimming the fork itself is refused, saying why.
    let out = codex.run(&["trim", CHILD, "--keep-messages", "1", "--dry-run"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("fork by reference"));
    // Once the fork is gone, the parent may go.
    assert!(codex.run(&["delete", CHILD, "--yes"]).status.success());
    let out = codex.run(&["delete", PARENT, "--yes"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_missing_parent_or_a_cycle_is_said_and_the_own_lines_shown() {
    let codex = Codex::new();
    // No parent at all.
    child(&codex, (PARENT, 3, 100));
    let shown = codex.json(&["show", CHILD, "--json"]);
    assert_eq!(texts(&shown).len(), 1);
    assert!(shown.to_string().contains("not in"), "{}", shown["notes"]);
    // A parent that names the child as its own parent: a cycle.
    let mut text = line(0, "session_meta", meta(PARENT, Some((CHILD, 1, 10))));
    text += &line(1, "response_item", said("user", "round and round"));
    let parent_file = codex
        .day()
        .join(format!("rollout-2026-07-01T10-00-00-{PARENT}.jsonl"));
    std::fs::write(&parent_file, &text).unwrap();
    let shown = codex.json(&["show", CHILD, "--json"]);
    assert!(shown.to_string().contains("cycle"), "{}", shown["notes"]);
}

#[test]
fn a_compressed_archived_rollout_is_listed_read_and_inherited_from() {
    let codex = Codex::new();
    let archive = codex.home.join(".codex/archived_sessions");
    let (plain, cut) = parent(&codex, &archive);
    // As Codex compresses a cold rollout: zstd, one frame, the plain file gone.
    let zst = plain.with_extension("jsonl.zst");
    let bytes = std::fs::read(&plain).unwrap();
    std::fs::write(&zst, zstd::encode_all(&bytes[..], 3).unwrap()).unwrap();
    std::fs::remove_file(&plain).unwrap();
    child(&codex, (PARENT, 3, cut));
    let list = codex.json(&["list", "--json"]);
    let ids: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&PARENT) && ids.contains(&CHILD), "{ids:?}");
    let parent_shown = codex.json(&["show", PARENT, "--json"]);
    assert_eq!(texts(&parent_shown).len(), 3);
    let shown = codex.json(&["show", CHILD, "--json"]);
    assert_eq!(
        texts(&shown).len(),
        3,
        "inherited from the compressed parent"
    );
    let found = codex.json(&["search", "rotates", "--json"]);
    assert!(found.to_string().contains(PARENT), "{found}");
}
