//! The usage of other agents' sessions against ccusage's (npm, pinned):
//! the four figures of every session add up to its totals.

use super::Home;
use serde_json::Value;
use std::path::PathBuf;

/// ccusage, pinned: the figure checked against.
const CCUSAGE_VERSION: &str = "20.0.24";

/// The ccusage binary: `$CCUSAGE`, or the copy `.ci/run` installs under
/// `target/ccusage`.
pub(super) fn ccusage() -> Option<PathBuf> {
    let path = std::env::var_os("CCUSAGE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("target/ccusage/node_modules/.bin/ccusage")
        });
    path.exists().then_some(path)
}

#[test]
#[ignore = "needs ccusage 20.0.24 from npm; .ci/run installs it (cargo test -- --include-ignored runs this)"]
fn our_usage_adds_up_to_what_ccusage_reports() {
    let Some(ccusage) = ccusage() else {
        panic!("ccusage {CCUSAGE_VERSION} is not installed: set CCUSAGE or run .ci/run");
    };
    let h = Home::new();
    let version = std::process::Command::new(&ccusage)
        .arg("--version")
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&version.stdout).contains(CCUSAGE_VERSION),
        "pinned to {CCUSAGE_VERSION}"
    );
    let out = std::process::Command::new(&ccusage)
        .args(["session", "--json", "--offline"])
        .env("HOME", &h.home)
        .env("XDG_CONFIG_HOME", h.home.join(".config"))
        .env("XDG_CACHE_HOME", h.cache.join("ccusage"))
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ours = h.json(&[
        "--agent", "claude", "--agent", "codex", "--agent", "gemini", "list", "--json", "--tokens",
    ]);
    let fields = [
        ("input", "inputTokens"),
        ("output", "outputTokens"),
        ("cache_read", "cacheReadTokens"),
        ("cache_write", "cacheCreationTokens"),
    ];
    for (ours_key, theirs_key) in fields {
        let sum: u64 = ours
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["usage"][ours_key].as_u64().unwrap())
            .sum();
        assert_eq!(
            sum,
            theirs["totals"][theirs_key].as_u64().unwrap(),
            "{ours_key}"
        );
    }
    // Session by session too, but for the sessions with subagents: ccusage
    // counts an old-layout Claude Code subagent file and a Gemini
    // subagent's file as sessions of their own; here they are the parent's.
    let with_subagents = [
        h.made.claude_with_subagents.clone(),
        h.made.gemini.get(2).cloned(),
    ];
    let mut compared = 0;
    for row in ours.as_array().unwrap() {
        let id = row["id"].as_str().unwrap();
        if with_subagents.iter().flatten().any(|s| s == id) {
            continue;
        }
        let theirs = theirs["session"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["agent"] == row["agent"] && s["period"].as_str().unwrap().ends_with(id))
            .unwrap_or_else(|| panic!("ccusage has no session {id}"));
        for (ours_key, theirs_key) in fields {
            assert_eq!(
                row["usage"][ours_key], theirs[theirs_key],
                "{id} {ours_key}"
            );
        }
        compared += 1;
    }
    assert!(compared >= h.ids().len() - 2);
}
