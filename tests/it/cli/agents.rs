//! Other agents' sessions beside Loki's: the generated Claude Code, Codex
//! and Gemini CLI fixtures (every line type, drift, bad lines) listed,
//! read, searched and exported through the CLI, never written.

use crate::common::*;
use loki_sessions::demo::agents::{self, AgentsSpec, AgentsSummary};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

mod archive;
mod fork_counts;
mod forks;
mod listing_cache;
mod moving;
mod purge;
mod read_only;
mod readers;
mod resumable;
mod trash;
mod usage;

const NOW: f64 = 1_795_939_200.0;

/// A home folder holding the fixtures, and a cache of its own.
struct Home {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    cache: PathBuf,
    made: AgentsSummary,
}

impl Home {
    fn new() -> Home {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let made = agents::generate(&home, &AgentsSpec::fixtures(NOW)).unwrap();
        sandbox::opencode_into(&home, &tmp.path().join("data"));
        Home {
            cache: tmp.path().join("cache"),
            home,
            _tmp: tmp,
            made,
        }
    }

    fn run(&self, args: &[&str]) -> Output {
        command()
            .at_home(&self.home)
            .env("XDG_CACHE_HOME", &self.cache)
            .env("XDG_DATA_HOME", self.cache.with_file_name("data"))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn json(&self, args: &[&str]) -> Value {
        serde_json::from_str(&self.ok(args)).unwrap()
    }

    fn ids(&self) -> Vec<&String> {
        self.made
            .claude
            .iter()
            .chain(&self.made.codex)
            .chain(&self.made.gemini)
            .chain(&self.made.copilot)
            .chain(&self.made.qwen)
            .chain(&self.made.cursor)
            .chain(&self.made.opencode)
            .collect()
    }
}

fn rows<'a>(list: &'a Value, agent: &str) -> Vec<&'a Value> {
    list.as_array()
        .unwrap()
        .iter()
        .filter(|r| r["agent"] == agent)
        .collect()
}

#[test]
fn every_agents_sessions_are_listed_with_folder_title_and_usage() {
    let h = Home::new();
    let list = h.json(&["list", "--json", "--tokens"]);
    assert_eq!(rows(&list, "claude").len(), h.made.claude.len());
    assert_eq!(rows(&list, "codex").len(), h.made.codex.len());
    assert_eq!(rows(&list, "gemini").len(), h.made.gemini.len());
    assert_eq!(rows(&list, "copilot").len(), h.made.copilot.len());
    assert_eq!(rows(&list, "qwen").len(), h.made.qwen.len());
    assert_eq!(rows(&list, "cursor").len(), h.made.cursor.len());
    for row in list.as_array().unwrap() {
        let id = row["id"].as_str().unwrap();
        assert!(
            !id.starts_with("agent-"),
            "a subagent listed as a session: {row}"
        );
        assert!(h.ids().iter().any(|i| *i == id), "{id} was not made");
        assert_eq!(row["error"], Value::Null, "{row}");
        assert!(
            row["cwd"].as_str().unwrap().starts_with("/home/dev/src/"),
            "{row}"
        );
        assert!(!row["title"].as_str().unwrap().is_empty(), "{row}");
        // The Cursor CLI records no tokens: no usage and no cost shown
        // (not a cost of nothing).
        if row["agent"] == "cursor" {
            assert!(
                row["usage"].is_null() && row["cost_estimate"].is_null(),
                "{row}"
            );
            assert!(row["messages"].as_u64().unwrap() > 0, "{row}");
            continue;
        }
        let usage = &row["usage"];
        let spent: u64 = ["input", "output", "cache_read", "cache_write"]
            .iter()
            .map(|k| usage[k].as_u64().unwrap())
            .sum();
        assert!(spent > 0, "{row}");
        // Priced, or unpriced by name (a model no list knows), never $0.
        let cost = &row["cost_estimate"];
        assert!(
            cost["usd"].as_f64().is_some_and(|usd| usd > 0.0)
                || !cost["unpriced_models"].as_array().unwrap().is_empty(),
            "{row}"
        );
        assert!(row["messages"].as_u64().unwrap() > 0, "{row}");
    }
    // Titles are the agents' own where they keep one.
    let titles: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["title"].as_str().unwrap())
        .collect();
    for title in [
        "Login fix",
        "Paginate the orders endpoint",
        "Flaky integration test investigation",
        "Billing refactor",
        "Compacted orders work",
        "Retry of the orders query",
        "Fix the flaky tests",
        "Search page speed-up",
    ] {
        assert!(titles.contains(&title), "{title} not in {titles:?}");
    }
}

#[test]
fn a_missing_loki_tree_is_no_mistake_beside_other_agents_but_a_named_one_is() {
    let h = Home::new();
    h.ok(&["list"]);
    let missing = h.home.join("no-such-root");
    let out = h.run(&["--root", missing.to_str().unwrap(), "list"]);
    assert_eq!(out.status.code(), Some(2), "a root named and missing");
    // An agent asked for whose folder is not there: where it was looked for.
    std::fs::rename(h.home.join(".codex"), h.home.join("codex-moved")).unwrap();
    let out = h.run(&["--agent", "codex", "list"]);
    assert_eq!(out.status.code(), Some(0));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains(".codex (not there: no Codex sessions)"),
        "{said}"
    );
    // An empty home: every agent's folder looked in is named.
    let empty = tempfile::tempdir().unwrap();
    let out = command()
        .at_home(empty.path())
        .env("XDG_CACHE_HOME", empty.path().join("cache"))
        .env("XDG_DATA_HOME", empty.path().join("data"))
        .arg("list")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains(".loki does not exist"), "{said}");
    let home = empty.path().display();
    let elsewhere = format!(
        "looked in {home}/.claude/projects, {home}/.codex, {home}/.gemini, {home}/.copilot, {home}/.qwen, {home}/.cursor"
    );
    assert!(said.contains(&elsewhere), "{said}");
    // An empty Loki tree beside them: each folder named in the list's note.
    std::fs::create_dir_all(empty.path().join(".loki/users/me/session")).unwrap();
    let out = command()
        .at_home(empty.path())
        .env("USER", "me")
        .env("XDG_CACHE_HOME", empty.path().join("cache"))
        .env("XDG_DATA_HOME", empty.path().join("data"))
        .args(["--user", "me", "list"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("no sessions in"), "{said}");
    for (folder, agent) in [
        (".claude/projects", "Claude Code"),
        (".codex", "Codex"),
        (".gemini", "Gemini CLI"),
        (".copilot", "Copilot CLI"),
        (".qwen", "Qwen Code"),
        (".cursor", "Cursor CLI"),
    ] {
        let named = format!("{folder} (not there: no {agent} sessions)");
        assert!(said.contains(&named), "{named}: {said}");
    }
}

#[test]
fn agent_names_every_command_to_those_agents() {
    let h = Home::new();
    let list = h.json(&["--agent", "codex", "list", "--json"]);
    assert_eq!(list.as_array().unwrap().len(), h.made.codex.len());
    let both = h.json(&["--agent", "claude", "--agent", "gemini", "list", "--json"]);
    assert_eq!(
        both.as_array().unwrap().len(),
        h.made.claude.len() + h.made.gemini.len()
    );
    let claude = &h.made.claude[0];
    let out = h.run(&["--agent", "codex", "show", claude]);
    assert_eq!(out.status.code(), Some(1), "not among codex's sessions");
    let copilot = h.json(&["--agent", "copilot", "list", "--json"]);
    assert_eq!(copilot.as_array().unwrap().len(), h.made.copilot.len());
    let bad = h.run(&["--agent", "cursr", "list"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn a_session_is_named_by_its_own_id_a_prefix_or_its_file() {
    let h = Home::new();
    for id in h.ids() {
        for arg in [id.as_str(), &id[..8]] {
            let shown = h.json(&["show", arg, "--json"]);
            assert_eq!(shown["session"]["id"], id.as_str(), "{arg}");
        }
    }
    let list = h.json(&["list", "--json"]);
    let path = rows(&list, "claude")[0]["path"]
        .as_str()
        .unwrap()
        .to_string();
    let shown = h.json(&["show", &path, "--json"]);
    assert_eq!(shown["session"]["path"], path.as_str());
}

#[test]
fn every_session_shows_with_notes_on_what_was_skipped() {
    let h = Home::new();
    for id in h.ids() {
        let shown = h.json(&["show", id, "--json"]);
        let messages = shown["messages"].as_array().unwrap();
        assert!(!messages.is_empty(), "{id}");
        // Each message names the lines of its file; OpenCode's are rows
        // of a database, not lines.
        let in_lines = !h.made.opencode.contains(id);
        for m in messages {
            assert_eq!(!m["lines"].as_array().unwrap().is_empty(), in_lines, "{m}");
        }
        let recorded = !h.made.cursor.contains(id);
        assert_eq!(
            (
                shown["usage"].is_object(),
                shown["cost_estimate"].is_object()
            ),
            (recorded, recorded),
            "{id}"
        );
    }
    let hostile = h.made.claude_hostile.as_ref().unwrap();
    let shown = h.json(&["show", hostile, "--json"]);
    let notes = shown["notes"].to_string();
    // Written long ago, its cut last line is a line that is not JSON.
    for said in [
        "skipped 2 lines (line 17, 20) that are not JSON",
        "not UTF-8",
        "hologram-event",
        "server_tool_future",
    ] {
        assert!(notes.contains(said), "{said} not in {notes}");
    }
    // Just written to, the same line is one still being written.
    let listed = h.json(&["list", "--json"]);
    let row = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == hostile.as_str())
        .unwrap();
    let file = PathBuf::from(row["path"].as_str().unwrap());
    std::fs::File::options()
        .append(true)
        .open(&file)
        .unwrap()
        .set_modified(std::time::SystemTime::now())
        .unwrap();
    let notes = h.json(&["show", hostile, "--json"])["notes"].to_string();
    for said in [
        "skipped 1 line (line 17) that are not JSON",
        "still being written",
    ] {
        assert!(notes.contains(said), "{said} not in {notes}");
    }
}

#[test]
fn claude_code_conversations_follow_the_chain() {
    let h = Home::new();
    let kinds = |id: &str| -> Vec<String> {
        let shown = h.json(&["show", id, "--json"]);
        shown["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|m| m["kind"].as_str().map(str::to_string))
            .collect()
    };
    let compacted = kinds(h.made.claude_compacted.as_ref().unwrap());
    assert_eq!(
        compacted
            .iter()
            .filter(|k| *k == "CompactionBoundary")
            .count(),
        2
    );
    assert_eq!(
        compacted.iter().filter(|k| *k == "CompactSummary").count(),
        2
    );
    // The abandoned branch of a rewind is not shown, and it says so.
    let rewound = h.json(&["show", h.made.claude_rewound.as_ref().unwrap(), "--json"]);
    let texts = rewound["messages"].to_string();
    assert!(!texts.contains("Actually, try it another way"), "{texts}");
    assert!(rewound["notes"].to_string().contains("other branches"));
    // A message streamed over several lines is one message of several
    // lines (the versions that stream one line per block).
    let streamed: usize = h
        .made
        .claude
        .iter()
        .map(|id| {
            let shown = h.json(&["show", id, "--json"]);
            shown["messages"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["lines"].as_array().unwrap().len() > 1)
                .count()
        })
        .sum();
    assert!(streamed > 0);
    // Subagents are contexts of their parent, in both layouts.
    let parent = h.made.claude_with_subagents.as_ref().unwrap();
    let contexts = h.json(&["contexts", parent, "--json"]);
    let others: Vec<&str> = contexts["contexts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["relation"] == "other")
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(others.len(), 2, "{contexts}");
    assert!(
        contexts["contexts"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["error"].is_null())
    );
    assert!(others.iter().all(|c| c.starts_with("agent-")));
    let sub = h.ok(&["export", parent, "--context", others[0], "--format", "md"]);
    assert!(sub.contains("Find why the test fails"), "{sub}");
}

#[test]
fn writes_are_refused_with_a_reason_and_nothing_changes() {
    let h = Home::new();
    let before = snapshot(&h.home);
    let id = h.made.claude[0].as_str();
    // Trims fork beside the original (cli/agents/forks.rs), a delete
    // moves it to the trash (cli/agents/trash.rs); what would change the
    // session itself is refused.
    for args in [
        vec!["activate", id, "agent-x"],
        vec!["delete-context", id, "agent-x", "--yes"],
    ] {
        let out = h.run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("never changed here"), "{args:?}: {err}");
    }
    assert_eq!(before, snapshot(&h.home));
}

#[test]
fn reading_writes_nothing_under_the_agents_folders() {
    let h = Home::new();
    let before = snapshot(&h.home);
    let out_dir = tempfile::tempdir().unwrap();
    h.ok(&["list", "--json", "--tokens"]);
    h.ok(&["index"]);
    h.ok(&["search", "test", "--json"]);
    h.ok(&["search", "test", "--no-index", "--json"]);
    for id in h.ids() {
        h.ok(&["show", id, "--full"]);
        h.ok(&[
            "show",
            id,
            "--format",
            "transcript",
            "--plain",
            "--no-pager",
        ]);
        h.ok(&["contexts", id, "--json"]);
        h.ok(&["resume", id, "--print", "command"]);
        let file = out_dir.path().join(format!("{id}.md"));
        h.ok(&["export", id, "--format", "md", "-o", file.to_str().unwrap()]);
    }
    assert_eq!(
        before,
        snapshot(&h.home),
        "a read wrote under the agents' folders"
    );
    // An export is never written inside another agent's folder.
    let inside = h.home.join(".claude/projects/out.md");
    let out = h.run(&[
        "export",
        &h.made.claude[0],
        "--format",
        "md",
        "-o",
        inside.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!inside.exists());
}

#[test]
fn a_session_is_shared_as_one_self_contained_page_with_what_it_spent() {
    let h = Home::new();
    let out_dir = tempfile::tempdir().unwrap();
    for id in [&h.made.claude[0], &h.made.codex[0], &h.made.gemini[0]] {
        let file = out_dir.path().join(format!("{id}.html"));
        // The format from the file's name.
        h.ok(&["export", id, "-o", file.to_str().unwrap()]);
        let page = std::fs::read_to_string(&file).unwrap();
        assert!(page.starts_with("<!doctype html>"), "{id}");
        assert!(page.contains("Content-Security-Policy"), "nothing fetched");
        assert!(!page.contains("<script"), "no script: {id}");
        assert!(
            page.contains("class=\"usage\">input "),
            "what it spent, on top: {id}"
        );
        let shown = h.json(&["show", id, "--json"]);
        let sections = page.matches("<section class=\"message").count();
        assert_eq!(
            sections,
            shown["messages"].as_array().unwrap().len(),
            "every message: {id}"
        );
    }
    // `--format html` to stdout.
    let page = h.ok(&["export", &h.made.claude[0], "--format", "html"]);
    assert!(page.contains("<details class=\"tool\">"), "tool calls fold");
}

#[test]
fn the_index_finds_what_the_direct_scan_finds_over_every_agent() {
    let h = Home::new();
    h.ok(&["index"]);
    for query in [
        "test",
        "login",
        "fixture stale",
        "role:user orders",
        "\"the tests pass\"",
    ] {
        let hits = |extra: &[&str]| -> Value {
            let mut args = vec!["search", query, "--json", "--limit", "1000"];
            args.extend_from_slice(extra);
            let out = h.run(&args);
            assert!(matches!(out.status.code(), Some(0 | 1)), "{args:?}");
            serde_json::from_slice(&out.stdout).unwrap_or(Value::Array(Vec::new()))
        };
        let indexed = hits(&[]);
        let direct = hits(&["--no-index"]);
        assert!(
            !direct.as_array().unwrap().is_empty(),
            "{query} finds nothing"
        );
        let keys = |v: &Value| -> std::collections::BTreeSet<(String, String, String)> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|hit| {
                    (
                        hit["agent"].as_str().unwrap().to_string(),
                        hit["session_id"].as_str().unwrap().to_string(),
                        hit["message_id"].as_str().unwrap().to_string(),
                    )
                })
                .collect()
        };
        assert_eq!(keys(&indexed), keys(&direct), "{query}");
        if query == "test" {
            let agents: std::collections::BTreeSet<String> =
                keys(&indexed).into_iter().map(|k| k.0).collect();
            assert_eq!(agents.len(), 7, "hits from every agent: {agents:?}");
        }
    }
    // A Codex session named after it was indexed (no rollout file changes):
    // its hits carry the new name.
    let codex_hit = |hits: &Value| -> Option<(String, String)> {
        hits.as_array().unwrap().iter().find_map(|hit| {
            (hit["agent"] == "codex").then(|| {
                (
                    hit["session_id"].as_str().unwrap().to_string(),
                    hit["session_name"].as_str().unwrap().to_string(),
                )
            })
        })
    };
    let search = || -> Value { h.json(&["search", "test", "--json", "--limit", "1000"]) };
    let (id, _) = codex_hit(&search()).expect("a Codex hit");
    let index = h.home.join(".codex/session_index.jsonl");
    let mut lines = std::fs::read_to_string(&index).unwrap_or_default();
    lines.push_str(&format!(
        "{{\"id\":\"{id}\",\"thread_name\":\"Renamed after indexing\",\"updated_at\":\"2026-11-30T10:00:00Z\"}}\n"
    ));
    std::fs::write(&index, lines).unwrap();
    let renamed = search();
    let named = renamed
        .as_array()
        .unwrap()
        .iter()
        .find(|hit| hit["session_id"] == id.as_str())
        .unwrap();
    assert_eq!(named["session_name"], "Renamed after indexing");
}

#[test]
fn a_file_that_is_not_a_session_is_listed_damaged_never_missing() {
    let h = Home::new();
    let project = h.home.join(".claude/projects/-home-dev-src-odd");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("0badf00d-0000-4000-8000-000000000000.jsonl"),
        b"\xff\xfe not json\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(
        "/etc/hostname",
        project.join("1badf00d-0000-4000-8000-000000000000.jsonl"),
    )
    .unwrap();
    let list = h.json(&["list", "--json"]);
    for id in ["0badf00d", "1badf00d"] {
        let row = list
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"].as_str().unwrap().starts_with(id))
            .unwrap_or_else(|| panic!("{id} missing"));
        assert!(row["error"].is_string(), "{row}");
    }
}

#[test]
fn resume_runs_the_agents_own_command_in_its_folder_or_prints_it() {
    let h = Home::new();
    let list = h.json(&["list", "--json"]);
    for (agent, program) in [
        ("claude", "claude --resume="),
        ("codex", "codex resume -- "),
        ("gemini", "gemini --resume="),
    ] {
        let row = rows(&list, agent)[0];
        let id = row["id"].as_str().unwrap();
        let cwd = row["cwd"].as_str().unwrap();
        let line = h.ok(&["resume", id, "--print", "command"]);
        assert_eq!(line.trim(), format!("cd {cwd} && {program}{id}"));
        // Its folder is not on this machine: said, nothing run.
        let out = h.run(&["resume", id]);
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("is not there"));
    }
    // A session whose folder is here: the configured command runs there.
    let work = h.home.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let id = "0a8f5c1e-4b1d-4c55-9e7a-2b6f0d4c1a7e";
    let project = h.home.join(".claude/projects/-work");
    std::fs::create_dir_all(&project).unwrap();
    let line = format!(
        r#"{{"type":"user","uuid":"u1","parentUuid":null,"cwd":"{}","sessionId":"{id}","timestamp":"2026-11-20T10:00:00Z","message":{{"role":"user","content":"hi"}}}}"#,
        work.display()
    );
    std::fs::write(project.join(format!("{id}.jsonl")), line + "\n").unwrap();
    let out_file = h.home.join("resumed.txt");
    let config = h.home.join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[resume]\nclaude = \"sh -c 'pwd > {} && echo $1 >> {}' sh {{id}}\"\n",
            out_file.display(),
            out_file.display()
        ),
    )
    .unwrap();
    h.ok(&["--config", config.to_str().unwrap(), "resume", id]);
    let said = std::fs::read_to_string(&out_file).unwrap();
    assert_eq!(said, format!("{}\n{id}\n", work.display()));
}

#[test]
fn list_says_when_each_agent_deletes_a_session_by_itself() {
    let h = Home::new();
    let rows = |h: &Home| -> Vec<Value> { h.json(&["list", "--json"]).as_array().unwrap().clone() };
    let day = 86_400.0;
    let due = |rows: &[Value], agent: &str| -> Vec<(f64, f64)> {
        rows.iter()
            .filter(|r| r["agent"] == agent && r["error"].is_null())
            .map(|r| {
                // Claude Code counts from the file's modification time.
                let from = if agent == "claude" {
                    modified(Path::new(r["path"].as_str().unwrap()))
                } else {
                    r["last_used_at"].as_f64().unwrap()
                };
                (from, r["agent_deletes_at"].as_f64().unwrap_or(f64::NAN))
            })
            .collect()
    };
    // No settings: Claude Code's 30 days; Gemini CLI's 30 days; Codex none.
    let listed = rows(&h);
    for (used, at) in due(&listed, "claude") {
        assert!((at - (used + 30.0 * day)).abs() < 1.0, "{used} {at}");
    }
    assert!(!due(&listed, "gemini").is_empty());
    assert!(
        listed
            .iter()
            .filter(|r| r["agent"] == "codex")
            .all(|r| r["agent_deletes_at"].is_null())
    );
    // A year in Claude Code's settings.
    std::fs::write(
        h.home.join(".claude/settings.json"),
        r#"{"cleanupPeriodDays": 365, "theme": "dark"}"#,
    )
    .unwrap();
    for (used, at) in due(&rows(&h), "claude") {
        assert!((at - (used + 365.0 * day)).abs() < 1.0, "{used} {at}");
    }
    // Gemini CLI's retention turned off: nothing is due.
    std::fs::write(
        h.home.join(".gemini/settings.json"),
        r#"{"general": {"sessionRetention": {"enabled": false}}}"#,
    )
    .unwrap();
    assert!(
        rows(&h)
            .iter()
            .filter(|r| r["agent"] == "gemini")
            .all(|r| r["agent_deletes_at"].is_null())
    );
}

/// The modification time of `path`, in seconds since the epoch.
pub(super) fn modified(path: &Path) -> f64 {
    let m = std::fs::metadata(path).unwrap().modified().unwrap();
    m.duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// The words of `text`: runs of letters and digits (markdown's marks, the
/// page's markup and the spacing left out).
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The text of each message of a text export, by the page's section id
/// (`m1`, …), the lines that only name a fold (`[thinking]`, `[tool call
/// Edit id]`, `[tool result id]`), a code fence's language and an ordered
/// list's numbers left out.
fn transcript_messages(text: &str) -> std::collections::BTreeMap<String, Vec<String>> {
    let mut out = std::collections::BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("── #") {
            let n: String = rest.chars().take_while(char::is_ascii_digit).collect();
            current = Some(format!("m{n}"));
            out.insert(format!("m{n}"), Vec::new());
            continue;
        }
        let Some(key) = &current else { continue };
        let label = line == "[thinking]"
            || line.starts_with("[tool call ")
            || line.starts_with("[tool result ");
        let fence = line.trim_start().starts_with("```");
        // An ordered list's number is the list's marker on the page.
        let item = line
            .trim_start()
            .split_once(". ")
            .filter(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
            .map(|(_, rest)| rest);
        let kept = match (label || fence, item) {
            (true, _) => "",
            (false, Some(rest)) => rest,
            (false, None) => line,
        };
        out.get_mut(key).unwrap().extend(words(kept));
    }
    out
}

#[test]
#[ignore = "needs python3 (its html.parser reads the page); .ci/run runs it"]
fn a_shared_page_read_by_a_real_html_parser_has_the_transcripts_text_and_no_script() {
    let h = Home::new();
    let out_dir = tempfile::tempdir().unwrap();
    let checker = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/html_check.py");
    for id in [&h.made.claude[0], &h.made.codex[0], &h.made.gemini[0]] {
        let file = out_dir.path().join(format!("{id}.html"));
        h.ok(&["export", id, "-o", file.to_str().unwrap()]);
        let out = std::process::Command::new("python3")
            .arg(&checker)
            .arg(&file)
            .output()
            .expect("python3 runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let read: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(read["scripts"], 0, "{id}: no script");
        assert_eq!(read["handlers"], serde_json::json!([]), "{id}");
        assert_eq!(read["script_urls"], serde_json::json!([]), "{id}");
        let transcript = transcript_messages(&h.ok(&["export", id, "--format", "txt"]));
        let page = read["messages"].as_object().unwrap();
        assert_eq!(
            page.keys().collect::<std::collections::BTreeSet<_>>(),
            transcript.keys().collect(),
            "{id}: the same messages"
        );
        for (key, expected) in &transcript {
            assert_eq!(
                &words(page[key].as_str().unwrap()),
                expected,
                "{id} {key}: the page's text is the transcript's"
            );
        }
    }
}
