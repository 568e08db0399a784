use super::*;
use serde_json::json;

const ID: &str = "0c1e7a52-4b3d-4f6e-9a21-6d5b8c3f2e10";

fn event(kind: &str, at: &str, data: serde_json::Value) -> String {
    json!({"type": kind, "data": data, "id": format!("e-{at}"), "parentId": null,
        "timestamp": format!("2026-11-20T10:00:{at}.000Z")})
    .to_string()
}

/// A session run twice (a resume appends to the same file, its figures
/// carried on), with a tool
/// call, a reasoning, a subagent, a compaction and an event of a kind the
/// reader does not know.
fn session(dir: &Path) -> PathBuf {
    let folder = dir.join("session-state").join(ID);
    std::fs::create_dir_all(&folder).unwrap();
    let mut sub = json!({"role": "system"});
    sub = json!({"type": "user.message", "data": {"content": "scan src/ for todo"}, "id": "s1",
        "parentId": null, "timestamp": "2026-11-20T10:00:07.000Z", "agentId": "explore-1", "x": sub});
    let lines = [
        event(
            "session.start",
            "00",
            json!({"sessionId": ID, "version": 1, "producer": "copilot-agent",
                "startTime": "2026-11-20T09:59:59.000Z", "selectedModel": "claude-sonnet-4.5",
                "context": {"cwd": "/home/ann/app", "branch": "main"}}),
        ),
        event(
            "system.message",
            "01",
            json!({"role": "system", "content": "You are Copilot."}),
        ),
        event(
            "user.message",
            "02",
            json!({"content": "why does the build fail?", "transformedContent": "<x>why</x>",
                "attachments": [{"type": "file", "path": "/home/ann/app/build.rs"}]}),
        ),
        event("assistant.turn_start", "03", json!({"turnId": "0"})),
        event(
            "assistant.reasoning",
            "04",
            json!({"reasoningId": "r1", "content": "Look at build.rs."}),
        ),
        event(
            "assistant.message",
            "05",
            json!({"messageId": "m1", "content": "",
                "toolRequests": [{"toolCallId": "call_1", "name": "view", "arguments": {"path": "build.rs"}}]}),
        ),
        event(
            "tool.execution_start",
            "06",
            json!({"toolCallId": "call_1", "toolName": "view"}),
        ),
        sub.to_string(),
        event(
            "tool.execution_complete",
            "08",
            json!({"toolCallId": "call_1", "success": true, "result": {"content": "fn main() {}", "detailedContent": "1 fn main() {}"}}),
        ),
        event(
            "assistant.message",
            "09",
            json!({"messageId": "m2", "content": "The build script is empty."}),
        ),
        event(
            "session.shutdown",
            "10",
            json!({"shutdownType": "routine", "currentModel": "claude-sonnet-4.5", "currentTokens": 21000,
                "modelMetrics": {"claude-sonnet-4.5": {"requests": {"count": 2},
                    "usage": {"inputTokens": 10250, "outputTokens": 300, "cacheReadTokens": 9000, "cacheWriteTokens": 50}}}}),
        ),
        event(
            "session.resume",
            "20",
            json!({"context": {"cwd": "/home/ann/app/web"}, "selectedModel": "gpt-5"}),
        ),
        event(
            "session.compaction_start",
            "21",
            json!({"tokenLimit": 128000}),
        ),
        event(
            "session.compaction_complete",
            "22",
            json!({"success": true, "summaryContent": "We looked at build.rs."}),
        ),
        event("user.message", "23", json!({"content": "now fix it"})),
        event(
            "assistant.message",
            "24",
            json!({"messageId": "m3", "content": "Done.", "reasoningText": "Add a body."}),
        ),
        event("session.brand_new_thing", "25", json!({})),
        event(
            "session.shutdown",
            "26",
            json!({"shutdownType": "routine", "currentTokens": 4000,
                "modelMetrics": {"gpt-5": {"usage": {"inputTokens": 700, "outputTokens": 90, "cacheReadTokens": 0, "cacheWriteTokens": 0}},
                    "claude-sonnet-4.5": {"usage": {"inputTokens": 10250, "outputTokens": 300, "cacheReadTokens": 9000, "cacheWriteTokens": 50}}}}),
        ),
    ];
    let path = folder.join(EVENTS);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

#[test]
fn a_session_lists_with_its_first_prompt_latest_folder_and_times() {
    let dir = tempfile::tempdir().unwrap();
    let path = session(dir.path());
    let homes = CopilotHome::open(dir.path());
    assert_eq!(homes.session_files(), vec![path.clone()]);
    let r = record_at(&path);
    assert_eq!(r.error, None);
    assert_eq!((r.agent, r.id.as_str()), (Agent::Copilot, ID));
    assert_eq!(r.first_prompt, "why does the build fail?");
    assert_eq!(
        r.title, r.first_prompt,
        "no workspace.yaml: the first prompt"
    );
    assert_eq!(r.cwd.as_deref(), Some("/home/ann/app/web"), "the resume's");
    assert_eq!(r.created_at, parse_time("2026-11-20T09:59:59Z").unwrap());
    assert_eq!(r.last_used_at, parse_time("2026-11-20T10:00:26Z").unwrap());
    // The workspace's name wins when there is one.
    std::fs::write(
        path.with_file_name("workspace.yaml"),
        format!("id: {ID}\ncwd: /home/ann/app\nname: Fix the build\n"),
    )
    .unwrap();
    assert_eq!(record_at(&path).title, "Fix the build");
}

#[test]
fn the_conversation_tools_subagent_usage_and_context_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = session(dir.path());
    let read = CopilotHome::read(&record_at(&path)).unwrap();
    let shown: Vec<(String, String)> = read
        .main
        .context
        .messages()
        .map(|m| (m.role().to_string(), m.one_line()))
        .collect();
    let roles: Vec<&str> = shown.iter().map(|(r, _)| r.as_str()).collect();
    assert_eq!(
        roles,
        [
            "system",
            "user",
            "assistant",
            "tool",
            "assistant",
            "system",
            "user",
            "assistant"
        ],
        "{shown:?}"
    );
    // The reasoning and the call it led to are one answer, from two lines.
    let answer = read.main.context.message(2).unwrap();
    assert_eq!(read.main.lines[2].len(), 2);
    let raw = answer.raw_json();
    assert!(
        raw.contains("Look at build.rs.") && raw.contains("call_1"),
        "{raw}"
    );
    assert!(
        shown[3].1.contains("fn main() {}"),
        "the model's text, not the detailed one"
    );
    assert!(shown[1].1.contains("why does the build fail?"));
    assert!(
        read.main
            .context
            .message(1)
            .unwrap()
            .raw_json()
            .to_string()
            .contains("[file attached: /home/ann/app/build.rs]"),
        "the attachment named"
    );
    // The subagent's prompt is its own thread, named from its agent id.
    assert_eq!(read.others.len(), 1);
    assert_eq!(read.others[0].context.id(), "agent-explore-1");
    assert_eq!(read.others[0].context.len(), 1);
    // Each model's largest figures: the second run carried Sonnet's on
    // unchanged (counted once) and added GPT-5's; the input without the
    // cache reads and writes it holds.
    let models: Vec<(&str, u64, u64)> = read
        .usage
        .models
        .iter()
        .map(|(m, u)| (m.as_str(), u.input, u.cache_read))
        .collect();
    assert_eq!(
        models,
        [("claude-sonnet-4.5", 1200, 9000), ("gpt-5", 700, 0)]
    );
    // The last run's context, with the window its compaction recorded.
    let c = read.context.unwrap();
    assert_eq!(
        (c.tokens, c.window, c.messages_seen),
        (4000, Some(128000), 8)
    );
    assert_eq!(
        read.skipped.unknown_types,
        [("session.brand_new_thing".to_string(), 1)]
    );
}

#[test]
fn a_folder_named_as_no_id_may_be_is_listed_damaged_and_a_folder_without_events_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("session-state/-rf");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(bad.join(EVENTS), "{}\n").unwrap();
    std::fs::create_dir_all(dir.path().join("session-state/empty")).unwrap();
    let files = CopilotHome::open(dir.path()).session_files();
    assert_eq!(files.len(), 1);
    let r = record_at(&files[0]);
    assert!(
        r.error.is_some(),
        "an id starting with '-' never reaches an argv"
    );
    assert_ne!(r.id.as_str(), "-rf");
}

trait RawJson {
    fn raw_json(&self) -> String;
}

impl RawJson for crate::store::format::Message<'_> {
    fn raw_json(&self) -> String {
        serde_json::Value::Object(self.raw().clone()).to_string()
    }
}

#[test]
fn each_shutdown_adds_what_grew_since_the_one_before_dated_at_it() {
    // The figures are the session's so far: a resume carries them on.
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("session-state").join(ID);
    std::fs::create_dir_all(&folder).unwrap();
    let shutdown = |day: u32, input: u64, output: u64, read: u64| {
        json!({"type": "session.shutdown", "id": format!("s{day}"), "parentId": null,
            "timestamp": format!("2026-11-{day}T10:00:00.000Z"),
            "data": {"modelMetrics": {"gpt-5": {"usage": {"inputTokens": input,
                "outputTokens": output, "cacheReadTokens": read, "cacheWriteTokens": 0}}}}})
        .to_string()
    };
    let lines = [
        event("session.start", "00", json!({"sessionId": ID})),
        shutdown(20, 1000, 100, 300),
        shutdown(22, 1500, 160, 400),
        // A figure that fell (a file written by hand, a reset) adds nothing.
        shutdown(23, 20, 1, 0),
    ];
    let path = folder.join(EVENTS);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let usage = CopilotHome::read(&record_at(&path)).unwrap().usage;
    let u = usage.total();
    assert_eq!((u.input, u.output, u.cache_read), (1100, 160, 400));
    let added: Vec<(u64, u64)> = usage
        .spends
        .iter()
        .map(|s| (s.usage.input, s.usage.output))
        .collect();
    assert_eq!(added, [(700, 100), (400, 60)]);
}
