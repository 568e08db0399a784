//! `move`: another agent's session written again for the folder its
//! project moved to, the old one in the trash, and the agent's own resume
//! running there.

use super::Home;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn row(h: &Home, id: &str) -> Value {
    h.json(&["list", "--json"])
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .cloned()
        .unwrap()
}

fn cwds(file: &Path) -> Vec<String> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| {
            v["cwd"]
                .as_str()
                .or(v["payload"]["cwd"].as_str())
                .map(str::to_string)
        })
        .collect()
}

#[test]
fn a_claude_session_moves_to_its_projects_new_folder_and_resumes_there() {
    let h = Home::new();
    let id = h.made.claude[0].clone();
    let before = row(&h, &id);
    let old_file = PathBuf::from(before["path"].as_str().unwrap());
    let old_cwd = before["cwd"].as_str().unwrap().to_string();
    let new_home = h.home.join("src/moved-app");
    std::fs::create_dir_all(&new_home).unwrap();
    let to = new_home.to_str().unwrap();
    // A dry run says what it would do and writes nothing.
    let untouched = crate::common::snapshot(&h.home);
    let plan = h.json(&["move", &id, "--to", to, "--dry-run", "--json"]);
    assert!(plan["lines_changed"].as_u64().unwrap() > 0, "{plan}");
    assert_eq!(crate::common::snapshot(&h.home), untouched);
    // The move.
    let done = h.json(&["move", &id, "--to", to, "--json"]);
    let new_file = PathBuf::from(done["to_file"].as_str().unwrap());
    assert_eq!(
        new_file
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap(),
        to.replace(['/', '.', '_'], "-"),
        "Claude Code's folder for the new path"
    );
    assert!(!old_file.exists(), "the old one went");
    let moved = cwds(&new_file);
    assert!(!moved.is_empty());
    assert!(
        moved.iter().all(|c| c.starts_with(to)),
        "every folder moved: {moved:?} (was {old_cwd})"
    );
    // The agent's resume runs in the new folder.
    let command = h.ok(&["resume", &id, "--print", "command"]);
    assert!(command.contains(to), "{command}");
    // The old one is in the trash and comes back.
    let entry = done["trash_entry"].as_str().unwrap().to_string();
    let trash = h.json(&["trash", "--json"]);
    assert!(trash.to_string().contains(&entry), "{trash}");
}

#[test]
fn a_codex_rollout_keeps_its_name_with_the_new_folder_and_gemini_is_refused() {
    let h = Home::new();
    let id = h.made.codex[0].clone();
    let file = PathBuf::from(row(&h, &id)["path"].as_str().unwrap());
    let new_home = h.home.join("srv/app");
    std::fs::create_dir_all(&new_home).unwrap();
    let to = new_home.to_str().unwrap();
    let done = h.json(&["move", &id, "--to", to, "--json"]);
    assert_eq!(PathBuf::from(done["to_file"].as_str().unwrap()), file);
    let moved = cwds(&file);
    assert!(moved.iter().all(|c| c.starts_with(to)), "{moved:?}");
    assert_eq!(row(&h, &id)["cwd"], to);
    assert!(h.json(&["trash", "--json"]).to_string().contains(&id));
    // Gemini CLI files sessions by a project id of its own: refused.
    let out = h.run(&["move", &h.made.gemini[0], "--to", to]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not moved"));
}

/// ccusage's figures for the one session in `file`, read alone (in a
/// home of its own, as `rel` beneath it).
fn ccusage_of(file: &Path, rel: &Path, id: &str) -> Vec<Value> {
    let alone = tempfile::tempdir().unwrap();
    let to = alone.path().join(rel);
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(file, &to).unwrap();
    let report = super::usage::ccusage_json(alone.path(), alone.path(), &["session"]);
    let session = report["session"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["period"].as_str().unwrap().ends_with(id))
        .unwrap_or_else(|| panic!("ccusage has {id}: {report}"))
        .clone();
    [
        "inputTokens",
        "outputTokens",
        "cacheReadTokens",
        "cacheCreationTokens",
    ]
    .iter()
    .map(|k| session[k].clone())
    .collect()
}

#[test]
#[ignore = "needs claude-code-log 1.7.0 (PyPI) and ccusage 20.0.24 (npm); .ci/run installs them"]
fn a_moved_claude_session_reads_in_claude_code_log_and_ccusage_as_before() {
    use super::readers::{CLAUDE_CODE_LOG_VERSION, claude_code_log, read_with_claude_code_log};
    let Some(cclog) = claude_code_log() else {
        panic!(
            "claude-code-log {CLAUDE_CODE_LOG_VERSION} is not installed: set CLAUDE_CODE_LOG or run .ci/run"
        );
    };
    assert!(
        super::usage::ccusage().is_some(),
        "ccusage is not installed: set CCUSAGE or run .ci/run"
    );
    let h = Home::new();
    let mut checked = 0;
    for id in h.made.claude.clone() {
        let before = h
            .json(&["--agent", "claude", "list", "--json", "--tokens"])
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id.as_str())
            .cloned()
            .unwrap();
        if !before["error"].is_null() || before["usage"]["output"].as_u64().unwrap_or(0) == 0 {
            continue;
        }
        let old_file = PathBuf::from(before["path"].as_str().unwrap());
        let Ok((seen_before, warned_before)) =
            read_with_claude_code_log(&cclog, &old_file, &h.home)
        else {
            continue;
        };
        let rel_before = old_file.strip_prefix(&h.home).unwrap().to_path_buf();
        let spent_before = ccusage_of(&old_file, &rel_before, &id);
        let to = h.home.join(format!("src/moved-{checked}"));
        std::fs::create_dir_all(&to).unwrap();
        let done = h.json(&["move", &id, "--to", to.to_str().unwrap(), "--json"]);
        let new_file = PathBuf::from(done["to_file"].as_str().unwrap());
        let (seen, warned) = read_with_claude_code_log(&cclog, &new_file, &h.home)
            .unwrap_or_else(|e| panic!("claude-code-log reads the moved {id}: {e}"));
        assert_eq!(seen, seen_before, "{id}: the same messages");
        assert_eq!(warned, warned_before, "{id}: no new warning");
        let rel = new_file.strip_prefix(&h.home).unwrap().to_path_buf();
        assert_eq!(
            ccusage_of(&new_file, &rel, &id),
            spent_before,
            "{id}: what it spent, as before"
        );
        let command = h.ok(&["resume", &id, "--print", "command"]);
        assert!(command.contains(to.to_str().unwrap()), "{command}");
        checked += 1;
    }
    assert!(checked >= 2, "{checked} moved sessions checked");
}
