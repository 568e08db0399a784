//! The usage of other agents' sessions against ccusage's (npm, pinned):
//! the four figures of every session add up to its totals, each session's
//! equal ccusage's and its cost within 1% where both price its models (a
//! model neither prices is unpriced on both sides, never $0), and `stats`
//! by day equals `ccusage daily`.

use super::Home;
use crate::common::Sandboxed;
use serde_json::Value;
use std::path::PathBuf;

/// ccusage, pinned: the figure checked against.
const CCUSAGE_VERSION: &str = "20.0.24";

/// The ccusage binary: `$CCUSAGE`, or the copy `.ci/run` installs under
/// `target/ccusage`.
pub(super) fn ccusage() -> Option<PathBuf> {
    let path = std::env::var_os("CCUSAGE").map_or_else(
        || {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("target/ccusage/node_modules/.bin/ccusage")
        },
        PathBuf::from,
    );
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
    hide_qwen(&h);
    let theirs = ccusage_json(&h.home, &h.cache, &["session"]);
    let ours = h.json(&[
        "--agent", "claude", "--agent", "codex", "--agent", "gemini", "--agent", "copilot",
        "--agent", "opencode", "list", "--json", "--tokens",
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
    // counts an old-layout Claude Code subagent file, a Gemini subagent's
    // file and an OpenCode subagent's session as sessions of their own;
    // here they are the parent's.
    let with_subagents = [
        h.made.claude_with_subagents.clone(),
        h.made.gemini.get(2).cloned(),
        h.made.opencode.first().cloned(),
    ];
    let theirs_all = &theirs;
    let (mut compared, mut priced, mut unpriced_sessions) = (0, 0, 0);
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
        let cost = &row["cost_estimate"];
        let their_cost = theirs["totalCost"].as_f64().unwrap();
        match cost["usd"].as_f64() {
            Some(usd) if cost["unpriced_models"].as_array().unwrap().is_empty() => {
                assert!(
                    (usd - their_cost).abs() <= 0.01 * their_cost.max(1e-9),
                    "{id}: ${usd} here, ${their_cost} by ccusage"
                );
                priced += 1;
            }
            _ => {
                // Unpriced here: ccusage prices it at nothing and names it.
                let unpriced = cost["unpriced_models"].as_array().unwrap();
                assert!(!unpriced.is_empty(), "{id}: {cost}");
                assert_eq!(their_cost, 0.0, "{id}");
                let named = &theirs_all["totals"]["unpricedModels"];
                for model in unpriced {
                    assert!(named.as_array().unwrap().contains(model), "{id}: {named}");
                }
                unpriced_sessions += 1;
            }
        }
        compared += 1;
    }
    assert!(compared >= ours.as_array().unwrap().len() - 3);
    assert!(
        priced >= compared - 1 && unpriced_sessions >= 1,
        "{priced} priced, {unpriced_sessions} unpriced"
    );
}

/// `ccusage ARGS --json --offline` on `home`, days in UTC.
/// Moves Qwen Code's folder out of ccusage's sight: ccusage 20.0.24 reads
/// it by another rule (the cached tokens left in the input), compared on
/// its own below.
fn hide_qwen(h: &Home) {
    std::fs::rename(h.home.join(".qwen"), h.home.join("qwen-compared-apart")).unwrap();
}

#[test]
#[ignore = "needs ccusage 20.0.24 from npm; .ci/run installs it (cargo test -- --include-ignored runs this)"]
fn qwen_code_s_usage_is_ccusage_s_with_the_cached_tokens_taken_out_of_the_input() {
    assert!(
        ccusage().is_some(),
        "ccusage {CCUSAGE_VERSION} is not installed: set CCUSAGE or run .ci/run"
    );
    let h = Home::new();
    // ccusage takes `promptTokenCount` as input without the cached tokens;
    // Qwen Code maps an API's `prompt_tokens`, which holds them, to it (its
    // `converter.ts`), so here they are taken out: input here is ccusage's
    // input less its cache reads, everything else equal.
    let theirs = ccusage_json(&h.home, &h.cache, &["qwen", "session"]);
    let ours = h.json(&["--agent", "qwen", "list", "--json", "--tokens"]);
    let rows = ours.as_array().unwrap();
    assert_eq!(rows.len(), h.made.qwen.len());
    for row in rows {
        let id = row["id"].as_str().unwrap();
        let theirs = theirs["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["sessionId"] == id)
            .unwrap_or_else(|| panic!("ccusage has no session {id}"));
        let n = |v: &Value, k: &str| v[k].as_u64().unwrap();
        let u = &row["usage"];
        assert_eq!(n(u, "output"), n(theirs, "outputTokens"), "{id}");
        assert_eq!(n(u, "cache_read"), n(theirs, "cacheReadTokens"), "{id}");
        assert_eq!(
            n(u, "cache_write"),
            n(theirs, "cacheCreationTokens"),
            "{id}"
        );
        assert_eq!(
            n(u, "input"),
            n(theirs, "inputTokens") - n(theirs, "cacheReadTokens"),
            "{id}"
        );
    }
}

pub(super) fn ccusage_json(
    home: &std::path::Path,
    cache: &std::path::Path,
    args: &[&str],
) -> Value {
    let ccusage = ccusage().expect("ccusage is installed");
    let out = std::process::Command::new(ccusage)
        .args(args)
        .args(["--json", "--offline"])
        .at_home(home)
        .env("TZ", "UTC")
        .env("XDG_CACHE_HOME", cache.join("ccusage"))
        // Where OpenCode's database is (see `Home::new`).
        .env("XDG_DATA_HOME", cache.with_file_name("data"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
#[ignore = "needs ccusage 20.0.24 from npm; .ci/run installs it (cargo test -- --include-ignored runs this)"]
fn stats_by_day_equal_ccusage_daily() {
    assert!(
        ccusage().is_some(),
        "ccusage {CCUSAGE_VERSION} is not installed: set CCUSAGE or run .ci/run"
    );
    let h = Home::new();
    // ccusage's daily report counts a streamed message without requestIds
    // once per line (its session report, and this one, once): the files
    // Claude Code wrote without them are left out of this comparison.
    let mut left_out = 0;
    for dir in std::fs::read_dir(h.home.join(".claude/projects"))
        .unwrap()
        .flatten()
    {
        for file in std::fs::read_dir(dir.path()).unwrap().flatten() {
            let path = file.path();
            let is_session = path.extension().is_some_and(|e| e == "jsonl");
            if is_session
                && let Ok(text) = std::fs::read_to_string(&path)
                && text.contains("\"usage\"")
                && !text.contains("\"requestId\"")
            {
                // With its subagents' files, which here count with it.
                let id = path.file_stem().unwrap().to_string_lossy().into_owned();
                let _ = std::fs::remove_dir_all(path.with_extension(""));
                for other in std::fs::read_dir(dir.path()).unwrap().flatten() {
                    let name = other.file_name().to_string_lossy().into_owned();
                    if name.starts_with("agent-")
                        && std::fs::read_to_string(other.path()).is_ok_and(|t| t.contains(&id))
                    {
                        std::fs::remove_file(other.path()).unwrap();
                    }
                }
                std::fs::remove_file(&path).unwrap();
                left_out += 1;
            }
        }
    }
    assert!(left_out >= 1, "the fixtures hold files without requestIds");
    hide_qwen(&h);
    let theirs = ccusage_json(&h.home, &h.cache, &["daily"]);
    let out = crate::common::command()
        .at_home(&h.home)
        .env("TZ", "UTC")
        .env("XDG_CACHE_HOME", &h.cache)
        .env("XDG_DATA_HOME", h.cache.with_file_name("data"))
        .args([
            "--agent", "claude", "--agent", "codex", "--agent", "gemini", "--agent", "copilot",
            "--agent", "opencode", "stats", "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours: Value = serde_json::from_slice(&out.stdout).unwrap();
    let days = theirs["daily"].as_array().unwrap();
    assert!(days.len() >= 5, "{theirs}");
    let rows = ours["rows"].as_array().unwrap();
    let ours_days: Vec<&str> = rows.iter().map(|r| r["key"].as_str().unwrap()).collect();
    let their_days: Vec<&str> = days.iter().map(|d| d["period"].as_str().unwrap()).collect();
    assert_eq!(ours_days, their_days, "the same days");
    for day in days {
        let key = day["period"].as_str().unwrap();
        let row = rows
            .iter()
            .find(|r| r["key"] == key)
            .unwrap_or_else(|| panic!("no day {key} here: {ours}"));
        for (ours_key, theirs_key) in [
            ("input", "inputTokens"),
            ("output", "outputTokens"),
            ("cache_read", "cacheReadTokens"),
            ("cache_write", "cacheCreationTokens"),
        ] {
            assert_eq!(row["usage"][ours_key], day[theirs_key], "{key} {ours_key}");
        }
        let their_cost = day["totalCost"].as_f64().unwrap();
        let usd = row["cost_usd"].as_f64().unwrap_or(0.0);
        assert!(
            (usd - their_cost).abs() <= 0.01 * their_cost.max(1e-9),
            "{key}: ${usd} here, ${their_cost} by ccusage"
        );
    }
}

/// What the last request of a session file says the API took, read here
/// from the file as each agent writes it: Claude Code's last main-chain
/// assistant line, Codex's last `token_count`, Gemini CLI's last answer,
/// Copilot CLI's last run's end (with the window its last compaction
/// named).
fn last_request(agent: &str, id: &str, path: &std::path::Path) -> Option<(u64, Option<u64>)> {
    if agent == "opencode" {
        return opencode_last_request(id, path);
    }
    let text = std::fs::read_to_string(path).ok()?;
    let mut lines = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok());
    let n = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    match agent {
        // The newest line: a resumed session writes its first lines again
        // at its end, older than the lines before them.
        "claude" => lines
            .filter(|l| l["type"] == "assistant" && l["isSidechain"] != true)
            .filter(|l| l["message"].get("usage").is_some())
            .max_by(|a, b| a["timestamp"].as_str().cmp(&b["timestamp"].as_str()))
            .map(|l| {
                let u = &l["message"]["usage"];
                let prompt = n(u, "input_tokens")
                    + n(u, "cache_read_input_tokens")
                    + n(u, "cache_creation_input_tokens");
                (prompt, None)
            }),
        "codex" => lines
            .rfind(|l| l["payload"]["type"] == "token_count" && l["payload"]["info"].is_object())
            .map(|l| {
                let info = &l["payload"]["info"];
                (
                    n(&info["last_token_usage"], "input_tokens"),
                    info["model_context_window"].as_u64(),
                )
            }),
        "qwen" => lines
            .rfind(|l| {
                l["type"] == "assistant"
                    && l["isSidechain"] != true
                    && l["usageMetadata"].is_object()
            })
            .map(|l| {
                (
                    n(&l["usageMetadata"], "promptTokenCount"),
                    l["contextWindowSize"].as_u64(),
                )
            }),
        "copilot" => {
            let (mut last, mut window) = (None, None);
            for l in lines {
                match l["type"].as_str() {
                    Some("session.compaction_start" | "session.truncation") => {
                        window = l["data"]["tokenLimit"].as_u64().or(window);
                    }
                    Some("session.shutdown") => {
                        last = l["data"]["currentTokens"].as_u64().map(|t| (t, window));
                    }
                    _ => {}
                }
            }
            last
        }
        _ => lines
            .rfind(|l| l["type"] == "gemini" && l["tokens"].is_object())
            .map(|l| {
                let t = &l["tokens"];
                let inclusive = n(t, "cached") > 0
                    && t["total"].as_u64()
                        == Some(n(t, "input") + n(t, "output") + n(t, "thoughts") + n(t, "tool"));
                let input = if inclusive {
                    n(t, "input")
                } else {
                    n(t, "input") + n(t, "cached")
                };
                (input + n(t, "tool"), None)
            }),
    }
}

/// OpenCode's last answer of session `id` with tokens, read from its
/// database with SQLite (on a copy: a reader opening it normally leaves
/// `-wal` and `-shm` files beside it).
fn opencode_last_request(id: &str, db: &std::path::Path) -> Option<(u64, Option<u64>)> {
    let copy = tempfile::tempdir().unwrap();
    let file = copy.path().join("opencode.db");
    std::fs::copy(db, &file).unwrap();
    let conn = rusqlite::Connection::open(&file).unwrap();
    let data: String = conn
        .query_row(
            "SELECT data FROM message WHERE session_id = ?1
               AND json_extract(data, '$.role') = 'assistant'
               AND json_extract(data, '$.tokens') IS NOT NULL
             ORDER BY time_created DESC, id DESC LIMIT 1",
            [id],
            |row| row.get(0),
        )
        .ok()?;
    let t = serde_json::from_str::<Value>(&data).ok()?["tokens"].clone();
    let n = |v: &Value| v.as_u64().unwrap_or(0);
    Some((
        n(&t["input"]) + n(&t["cache"]["read"]) + n(&t["cache"]["write"]),
        None,
    ))
}

#[test]
fn the_context_is_what_the_agents_api_saw_at_the_last_request() {
    let h = Home::new();
    let list = h.json(&[
        "--agent", "claude", "--agent", "codex", "--agent", "gemini", "--agent", "copilot",
        "--agent", "qwen", "--agent", "opencode", "list", "--json",
    ]);
    let mut compared = 0;
    for row in list.as_array().unwrap() {
        let (agent, id) = (row["agent"].as_str().unwrap(), row["id"].as_str().unwrap());
        if row["error"].is_string() {
            continue;
        }
        let path = std::path::PathBuf::from(row["path"].as_str().unwrap());
        let Some((recorded, window)) = last_request(agent, id, &path) else {
            continue;
        };
        let shown = h.json(&["show", id, "--json"]);
        let context = &shown["context"];
        assert_eq!(context["source"], "recorded", "{id}: {context}");
        assert_eq!(
            context["recorded"].as_u64(),
            Some(recorded),
            "{agent} {id}: {context}"
        );
        let tokens = context["tokens"].as_u64().unwrap();
        assert_eq!(
            tokens,
            recorded + context["estimated_after"].as_u64().unwrap()
        );
        if let Some(window) = window {
            assert_eq!(
                context["window"].as_u64(),
                Some(window),
                "{id}: the file's window"
            );
        }
        let fraction = context["fraction"].as_f64().unwrap();
        assert!((fraction - tokens as f64 / context["window"].as_f64().unwrap()).abs() < 1e-9);
        // What the transcript does not hold shows as such.
        assert!(shown["breakdown"]["not_in_file"].as_u64().is_some(), "{id}");
        // cl100k_base counts: not the model's own tokenizer for any of them.
        assert_eq!(shown["tokens_are"], "estimate");
        compared += 1;
    }
    assert!(
        compared >= list.as_array().unwrap().len() - 3,
        "{compared} compared"
    );
}

/// A model the shipped table does not price is priced by the config's
/// `[prices]`, in `list` as in `stats` (the store's table is made when
/// first asked for, with the config's prices on top).
#[test]
fn the_configs_prices_price_a_model_the_table_does_not_know() {
    let h = Home::new();
    let rows = |h: &Home, extra: &[&str]| -> Vec<Value> {
        h.json(&[extra, &["--agent", "claude", "list", "--json", "--tokens"]].concat())
            .as_array()
            .unwrap()
            .clone()
    };
    let before = rows(&h, &[]);
    let (id, model) = before
        .iter()
        .find_map(|r| {
            let unpriced = r["cost_estimate"]["unpriced_models"].as_array()?;
            Some((r["id"].clone(), unpriced.first()?.as_str()?.to_string()))
        })
        .expect("a fixture holds a model no table prices");
    let config = h.home.join("prices.toml");
    std::fs::write(
        &config,
        format!("[prices.{model:?}]\ninput = 3.0\noutput = 15.0\n"),
    )
    .unwrap();
    let config = config.to_str().unwrap();
    let after = rows(&h, &["--config", config]);
    let row = after.iter().find(|r| r["id"] == id).unwrap();
    let cost = &row["cost_estimate"];
    assert!(
        cost["unpriced_models"].as_array().unwrap().is_empty(),
        "{cost}"
    );
    assert!(cost["usd"].as_f64().is_some_and(|usd| usd > 0.0), "{cost}");
    let stats = h.json(&[
        "--config", config, "--agent", "claude", "stats", "--by", "model", "--json",
    ]);
    let priced = stats["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"] == model.as_str())
        .unwrap_or_else(|| panic!("{model} in {stats}"));
    assert!(
        priced["cost_usd"].as_f64().is_some_and(|usd| usd > 0.0),
        "{priced}"
    );
}
