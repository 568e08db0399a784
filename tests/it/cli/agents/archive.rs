//! The archive: another agent's session kept beyond its agent's own
//! cleanup, stored once while unchanged, replaced by its newest copy,
//! restored byte for byte (dated now) when the agent has deleted it,
//! never over anything, and refused when it fails its hash.

use super::Home;
use crate::common::{Sandboxed, command};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn path_of(h: &Home, id: &str) -> PathBuf {
    PathBuf::from(listed_row(h, id)["path"].as_str().unwrap())
}

/// The row of session `id` in `list --json`.
fn listed_row(h: &Home, id: &str) -> Value {
    let list = h.json(&["list", "--json"]);
    list.as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("{id} is listed: {list}"))
        .clone()
}

fn archive_dir(h: &Home) -> PathBuf {
    h.cache.with_file_name("data").join("loki-sessions/archive")
}

#[test]
fn a_session_is_archived_once_replaced_when_changed_and_restored_exactly() {
    let h = Home::new();
    let id = h.made.claude[0].clone();
    let file = path_of(&h, &id);
    let original = std::fs::read(&file).unwrap();
    let agents_before = crate::common::snapshot(&h.home);
    let done = h.json(&["archive", &id, "--json"]);
    assert_eq!(done[0]["result"], "new", "{done}");
    assert_eq!(
        crate::common::snapshot(&h.home),
        agents_before,
        "archiving only reads the agent's files"
    );
    // Private, compressed, with a manifest.
    let entry = archive_dir(&h).join("claude").join(&id);
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(archive_dir(&h)).unwrap().permissions(),
    );
    assert_eq!(mode & 0o077, 0, "the archive is private");
    assert!(entry.join("manifest.json").is_file());
    assert!(entry.join("0.zst").is_file());
    // Again, unchanged: not stored twice.
    let again = h.json(&["archive", &id, "--json"]);
    assert_eq!(again[0]["result"], "unchanged");
    // Changed: the newest copy replaces the older one, and says so.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    std::io::Write::write_all(
        &mut f,
        format!("{{\"type\":\"custom-title\",\"customTitle\":\"Kept\",\"sessionId\":\"{id}\"}}\n")
            .as_bytes(),
    )
    .unwrap();
    drop(f);
    let changed = std::fs::read(&file).unwrap();
    let replaced = h.json(&["archive", &id, "--json"]);
    assert!(replaced[0]["result"]["replaced"].is_object(), "{replaced}");
    let listed = h.json(&["archive", "--list", "--json"]);
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    // Restoring over the live file is refused: never over anything.
    let out = h.run(&["restore", &id, "--from-archive"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(&file).unwrap(), changed);
    // The agent's cleanup deletes it; restore puts back the newest copy.
    std::fs::remove_file(&file).unwrap();
    let restored = h.json(&["restore", &id, "--from-archive", "--json"]);
    assert!(!restored["written"].as_array().unwrap().is_empty());
    assert_eq!(std::fs::read(&file).unwrap(), changed, "byte for byte");
    assert_ne!(changed, original);
    let age = std::fs::metadata(&file)
        .unwrap()
        .modified()
        .unwrap()
        .elapsed()
        .unwrap();
    assert!(age.as_secs() < 600, "dated now");
    let shown = h.json(&["show", &id, "--json"]);
    assert!(shown["messages"].as_array().is_some());
}

#[test]
fn a_damaged_entry_is_never_restored_and_a_delete_asks_or_takes_yes() {
    let h = Home::new();
    let id = h.made.codex[0].clone();
    let file = path_of(&h, &id);
    h.json(&["archive", &id, "--json"]);
    std::fs::remove_file(&file).unwrap();
    // A stored file that does not decode to its hash.
    let entry = archive_dir(&h).join("codex").join(&id);
    std::fs::write(
        entry.join("0.zst"),
        zstd::encode_all(&b"not the session"[..], 3).unwrap(),
    )
    .unwrap();
    let out = h.run(&["restore", &id, "--from-archive"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("fails its hash"));
    assert!(!file.exists(), "nothing written");
    // Delete: refused without a terminal or --yes, done with --yes.
    let out = h.run(&["archive", "--delete", &id]);
    assert_eq!(out.status.code(), Some(2));
    assert!(entry.exists());
    h.json(&["archive", "--delete", &id, "--yes", "--json"]);
    assert!(!entry.exists());
}

#[test]
fn what_the_agent_deletes_soon_is_archived_by_due_within() {
    let h = Home::new();
    // Claude Code deleting after a day: every fixture session (older) is due.
    std::fs::write(
        h.home.join(".claude/settings.json"),
        r#"{"cleanupPeriodDays": 1}"#,
    )
    .unwrap();
    let done = h.json(&[
        "--agent",
        "claude",
        "archive",
        "--due-within",
        "7d",
        "--json",
    ]);
    let ids: Vec<&str> = done
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_str().unwrap())
        .collect();
    assert!(!ids.is_empty());
    let claude: Vec<Value> = h
        .json(&["--agent", "claude", "list", "--json"])
        .as_array()
        .unwrap()
        .clone();
    for r in claude.iter().filter(|r| r["error"].is_null()) {
        assert!(ids.contains(&r["id"].as_str().unwrap()), "{r}");
    }
    assert!(
        done.as_array()
            .unwrap()
            .iter()
            .all(|o| o["agent"] == "claude")
    );
}

#[test]
fn a_session_its_agent_deleted_is_listed_read_searched_and_deleted_from_the_archive() {
    let h = Home::new();
    let id = h.made.claude[0].clone();
    let file = path_of(&h, &id);
    let shown_before = h.json(&["show", &id, "--json"]);
    h.json(&["archive", &id, "--json"]);
    // While the agent still has it, it is listed once, not archived.
    let list = h.json(&["list", "--json"]);
    let rows: Vec<&Value> = list
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["id"] == id.as_str())
        .collect();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(rows[0]["archived"].is_null(), "{}", rows[0]);
    // The agent's cleanup deletes it: the archived copy is listed instead.
    std::fs::remove_file(&file).unwrap();
    let row = listed_row(&h, &id);
    assert_eq!(row["archived"], true, "{row}");
    assert_eq!(row["agent"], "claude");
    // Indexed, its row takes its counts and usage from the archive's own
    // index (the agent's folder's knows the same id as it was there).
    h.json(&["index", "--json"]);
    let row = listed_row(&h, &id);
    assert_eq!(row["archived"], true, "{row}");
    assert!(row["tokens"].as_u64().is_some_and(|t| t > 0), "{row}");
    assert!(row["usage"]["output"].as_u64().is_some(), "{row}");
    assert!(row["cost_estimate"]["usd"].is_number(), "{row}");
    // Read as it was, with nothing written to the archive by reading.
    let archive_before = crate::common::snapshot(&archive_dir(&h));
    let shown = h.json(&["show", &id, "--json"]);
    assert_eq!(shown["messages"], shown_before["messages"]);
    assert_eq!(crate::common::snapshot(&archive_dir(&h)), archive_before);
    // Searched: a word of its first message finds it.
    let first = shown_before["messages"][0]["text"]
        .as_str()
        .or_else(|| shown_before["messages"][0]["content"].as_str())
        .unwrap_or_default()
        .split_whitespace()
        .find(|w| w.len() > 4 && w.chars().all(char::is_alphanumeric))
        .map(str::to_owned);
    if let Some(word) = first {
        let hits = h.json(&["search", &word, "--limit", "1000", "--json"]);
        assert!(
            hits.as_array()
                .unwrap()
                .iter()
                .any(|hit| hit["session_id"] == id.as_str()),
            "{word}: {hits}"
        );
    }
    // Exported like any other.
    let out = h.run(&["export", &id, "--format", "md"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Resuming or trimming it is refused with the way back.
    for args in [
        vec!["resume", id.as_str(), "--print", "command"],
        vec!["trim", id.as_str(), "--keep-messages", "1", "--json"],
        vec!["move", id.as_str(), "--to", "/tmp", "--dry-run"],
    ] {
        let out = h.run(&args);
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--from-archive"), "{args:?}: {err}");
    }
    // Deleting it removes it from the archive, asked or with --yes.
    let out = h.run(&["delete", &id]);
    assert!(!out.status.success());
    assert!(archive_dir(&h).join("claude").join(&id).exists());
    let out = h.run(&["delete", &id, "--yes"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!archive_dir(&h).join("claude").join(&id).exists());
    let list = h.json(&["list", "--json"]);
    assert!(
        !list
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["id"] == id.as_str())
    );
}

/// Claude Code's sweep as it runs at its start: each session's file and
/// the folder beside it deleted.
fn sweep(file: &std::path::Path) {
    std::fs::remove_file(file).unwrap();
    let side = file.with_extension("");
    if side.is_dir() {
        std::fs::remove_dir_all(side).unwrap();
    }
}

#[test]
fn what_the_setting_keeps_survives_the_agents_sweep_listed_found_and_restored_exactly() {
    let h = Home::new();
    std::fs::write(
        h.home.join(".claude/settings.json"),
        r#"{"cleanupPeriodDays": 1}"#,
    )
    .unwrap();
    let listed = h.json(&["--agent", "claude", "list", "--json"]);
    let sessions: Vec<(String, PathBuf)> = listed
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["error"].is_null())
        .map(|r| {
            (
                r["id"].as_str().unwrap().to_owned(),
                PathBuf::from(r["path"].as_str().unwrap()),
            )
        })
        .collect();
    assert!(sessions.len() >= 2, "{listed}");
    let before: Vec<(Vec<u8>, Value)> = sessions
        .iter()
        .map(|(id, file)| {
            (
                std::fs::read(file).unwrap(),
                h.json(&["show", id, "--json"]),
            )
        })
        .collect();
    assert!(
        archive_dir(&h).read_dir().is_err(),
        "nothing is archived while the setting is off"
    );
    // The setting on (the tests' sandbox turns it off): `list` keeps what
    // Claude Code deletes within a week, says so, and says nothing when
    // nothing new is kept.
    let on = |args: &[&str]| {
        let out = command()
            .at_home(&h.home)
            .env("XDG_CACHE_HOME", &h.cache)
            .env("XDG_DATA_HOME", h.cache.with_file_name("data"))
            .env("LOKI_SESSIONS_ARCHIVE_DUE", "7d")
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stderr).unwrap()
    };
    let said = on(&["--agent", "claude", "list"]);
    assert!(
        said.contains(&format!("kept {} sessions", sessions.len())),
        "{said}"
    );
    assert!(
        !on(&["--agent", "claude", "list"]).contains("kept"),
        "an unchanged copy is not news"
    );
    // With the archive there, Claude Code's rule is still read from its
    // settings (the archive's part is no agent folder of its own).
    let listed = h.json(&["--agent", "claude", "list", "--json"]);
    for r in listed.as_array().unwrap() {
        // Counted from the file's modification time, as Claude Code does.
        let at = r["agent_deletes_at"].as_f64().unwrap();
        let from = super::modified(Path::new(r["path"].as_str().unwrap()));
        assert!(
            (at - from - 86_400.0).abs() < 1.0,
            "cleanupPeriodDays 1: {r}"
        );
    }
    // Claude Code's sweep deletes them all.
    for (_, file) in &sessions {
        sweep(file);
    }
    let after = h.json(&["list", "--json"]);
    for ((id, file), (bytes, shown)) in sessions.iter().zip(&before) {
        let row = after
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id.as_str())
            .unwrap_or_else(|| panic!("{id} is still listed: {after}"));
        assert_eq!(row["archived"], true, "{row}");
        assert_eq!(
            &h.json(&["show", id, "--json"])["messages"],
            &shown["messages"]
        );
        let word = shown["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "user")
            .filter_map(|m| m["text"].as_str())
            .flat_map(str::split_whitespace)
            .find(|w| w.len() > 4 && w.chars().all(char::is_alphanumeric))
            .unwrap_or_else(|| panic!("a word to search for in {id}"))
            .to_owned();
        let hits = h.json(&["search", &word, "--session", id, "--json"]);
        assert!(!hits.as_array().unwrap().is_empty(), "{word} in {id}");
        h.json(&["restore", id, "--from-archive", "--json"]);
        assert_eq!(&std::fs::read(file).unwrap(), bytes, "{id} byte for byte");
    }
}
