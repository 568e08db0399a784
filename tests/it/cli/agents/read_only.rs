//! The agents read but not written yet, through the CLI: GitHub Copilot
//! CLI's sessions (listed with the name its `workspace.yaml` gives, read
//! with the tokens its last run recorded) and Qwen Code's (every answer's
//! tokens, a rewound one's too), each figure added up here from the file
//! itself by a reader written for this test; resumed in the agent; what is
//! not supported yet refused with nothing changed.

use super::*;

/// The tokens of `events` by model, as its last `session.shutdown` that
/// names the model says (each holds the session's figures so far): (input
/// without the cache reads and writes it holds, output, cache reads).
fn recorded(events: &Path) -> std::collections::BTreeMap<String, (u64, u64, u64)> {
    let mut out = std::collections::BTreeMap::new();
    for line in std::fs::read_to_string(events).unwrap().lines() {
        let Ok(event) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if event["type"] != "session.shutdown" {
            continue;
        }
        for (model, m) in event["data"]["modelMetrics"].as_object().unwrap() {
            let n = |k: &str| m["usage"][k].as_u64().unwrap();
            let input = n("inputTokens") - n("cacheReadTokens") - n("cacheWriteTokens");
            out.insert(
                model.clone(),
                (input, n("outputTokens"), n("cacheReadTokens")),
            );
        }
    }
    out
}

fn events_of(h: &Home, id: &str) -> PathBuf {
    h.home
        .join(".copilot/session-state")
        .join(id)
        .join("events.jsonl")
}

#[test]
fn a_copilot_session_lists_shows_and_resumes_with_what_every_run_spent() {
    let h = Home::new();
    let list = h.json(&["--agent", "copilot", "list", "--json", "--tokens"]);
    let rows = list.as_array().unwrap();
    assert_eq!(rows.len(), h.made.copilot.len());
    for row in rows {
        let id = row["id"].as_str().unwrap();
        let path = events_of(&h, id);
        assert_eq!(row["path"], path.to_str().unwrap());
        let shown = h.json(&["show", id, "--json"]);
        let u = &shown["usage"];
        let n = |k: &str| u[k].as_u64().unwrap();
        let mut want = (0, 0, 0);
        for (_, (i, o, c)) in recorded(&path) {
            want = (want.0 + i, want.1 + o, want.2 + c);
        }
        assert_eq!((n("input"), n("output"), n("cache_read")), want, "{id}");
        // Copilot's model names (`claude-sonnet-4.5`) are priced.
        assert!(
            shown["cost_estimate"]["usd"]
                .as_f64()
                .is_some_and(|c| c > 0.0),
            "{}",
            shown["cost_estimate"]
        );
    }
    // By model, over every session.
    let mut want = std::collections::BTreeMap::<String, (u64, u64, u64)>::new();
    for id in &h.made.copilot {
        for (model, (i, o, c)) in recorded(&events_of(&h, id)) {
            let e = want.entry(model).or_default();
            *e = (e.0 + i, e.1 + o, e.2 + c);
        }
    }
    let stats = h.json(&["--agent", "copilot", "stats", "--by", "model", "--json"]);
    let got: std::collections::BTreeMap<String, (u64, u64, u64)> = stats["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let n = |k: &str| r["usage"][k].as_u64().unwrap();
            let key = r["key"].as_str().unwrap().to_string();
            (key, (n("input"), n("output"), n("cache_read")))
        })
        .collect();
    assert_eq!(got, want);
    // The resumed session: two runs, the name from workspace.yaml, its
    // latest folder; resumed as `copilot --resume=<id>` there.
    let resumed = rows
        .iter()
        .find(|r| r["title"] == "Fix the flaky tests")
        .expect("the resumed session");
    let id = resumed["id"].as_str().unwrap();
    assert_eq!(recorded(&events_of(&h, id)).len(), 1, "one model, two runs");
    let command = h.ok(&["resume", id, "--print", "command"]);
    assert!(
        command.contains(&format!("copilot --resume={id}")),
        "{command}"
    );
    // The subagent's work is a context of its own.
    let contexts: Vec<Value> = h
        .made
        .copilot
        .iter()
        .map(|id| h.json(&["contexts", id, "--json"]))
        .collect();
    assert!(
        contexts
            .iter()
            .any(|c| c.to_string().contains("agent-explore-")),
        "{contexts:?}"
    );
}

/// The tokens of every answer of a Qwen Code file, each `uuid` once as its
/// last record says: (input without cache reads, output, cache reads).
fn qwen_recorded(path: &Path) -> (u64, u64, u64) {
    let mut by_uuid = std::collections::HashMap::new();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let Ok(r) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let u = &r["usageMetadata"];
        if r["type"] == "assistant" && u.is_object() {
            let n = |k: &str| u[k].as_u64().unwrap_or(0);
            let cached = n("cachedContentTokenCount");
            let spent = (
                n("promptTokenCount") - cached,
                n("candidatesTokenCount"),
                cached,
            );
            by_uuid.insert(r["uuid"].as_str().unwrap().to_string(), spent);
        }
    }
    by_uuid
        .values()
        .fold((0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2))
}

#[test]
fn a_qwen_session_lists_shows_and_resumes_with_every_answer_s_tokens() {
    let h = Home::new();
    let list = h.json(&["--agent", "qwen", "list", "--json"]);
    let rows = list.as_array().unwrap();
    assert_eq!(rows.len(), h.made.qwen.len());
    for row in rows {
        let id = row["id"].as_str().unwrap();
        let path = PathBuf::from(row["path"].as_str().unwrap());
        assert!(path.starts_with(h.home.join(".qwen/projects")), "{row}");
        let shown = h.json(&["show", id, "--json"]);
        let u = &shown["usage"];
        let n = |k: &str| u[k].as_u64().unwrap();
        assert_eq!(
            (n("input"), n("output"), n("cache_read")),
            qwen_recorded(&path),
            "{id}"
        );
        let command = h.ok(&["resume", id, "--print", "command"]);
        assert!(
            command.contains(&format!("qwen --resume={id}")),
            "{command}"
        );
    }
    assert!(
        rows.iter().any(|r| r["title"] == "Search page speed-up"),
        "a title set by the session"
    );
}

#[test]
fn a_cursor_transcript_lists_in_its_folder_and_resumes_in_the_cursor_cli() {
    let h = Home::new();
    let list = h.json(&["--agent", "cursor", "list", "--json"]);
    let rows = list.as_array().unwrap();
    assert_eq!(rows.len(), h.made.cursor.len());
    for row in rows {
        let id = row["id"].as_str().unwrap();
        assert!(
            row["cwd"].as_str().unwrap().starts_with("/home/dev/src/"),
            "the folder its shell ran in: {row}"
        );
        assert!(!row["title"].as_str().unwrap().contains("<user_query>"));
        let command = h.ok(&["resume", id, "--print", "command"]);
        assert!(
            command.contains(&format!("cursor-agent --resume={id}")),
            "{command}"
        );
    }
    // The aborted turn is said, and the subagent is a context of its own.
    let shown: Vec<String> = h
        .made
        .cursor
        .iter()
        .map(|id| h.ok(&["show", id, "--full"]))
        .collect();
    assert!(shown.iter().any(|s| s.contains("User aborted request")));
    let contexts = h.json(&["contexts", &h.made.cursor[0], "--json"]);
    assert_eq!(
        contexts["contexts"].as_array().unwrap().len(),
        2,
        "{contexts}"
    );
}

#[test]
fn what_the_read_only_agents_do_not_support_yet_is_refused_and_nothing_changes() {
    let h = Home::new();
    // OpenCode's database, in the data folder beside the home.
    let opencode = h.cache.with_file_name("data").join("opencode");
    let before = (snapshot(&h.home), snapshot(&opencode));
    // Copilot CLI's, Qwen Code's and the Cursor CLI's sessions go to the
    // trash (cli/agents/trash.rs); OpenCode's are not deleted.
    for (agent, id, deletes) in [
        ("copilot", &h.made.copilot[0], true),
        ("qwen", &h.made.qwen[0], true),
        ("cursor", &h.made.cursor[0], true),
        ("opencode", &h.made.opencode[1], false),
    ] {
        let id = id.as_str();
        let mut refused = vec![
            (
                vec!["trim", id, "--keep-messages", "2"],
                "cannot be trimmed or forked here yet",
            ),
            (
                vec!["move", id, "--to", h.home.to_str().unwrap()],
                "not moved",
            ),
        ];
        if !deletes {
            refused.push((vec!["delete", id, "--yes"], "read here but not deleted: "));
            refused.push((
                vec!["--agent", agent, "purge", "--max-age", "1d", "--yes"],
                "read here but not purged: ",
            ));
        }
        for (args, said) in refused {
            let out = h.run(&args);
            assert_eq!(out.status.code(), Some(2), "{args:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains(said), "{args:?}: {err}");
        }
    }
    assert_eq!(before, (snapshot(&h.home), snapshot(&opencode)));
    assert_eq!(before.1.len(), 1, "the database alone: {:?}", before.1);
}
