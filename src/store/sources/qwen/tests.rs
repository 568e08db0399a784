use super::*;
use serde_json::{Value, json};

const ID: &str = "5f0c1d2e-0000-4000-8000-000000000001";

fn record(uuid: &str, parent: Option<&str>, second: u32, kind: &str, more: Value) -> String {
    let mut r = json!({"uuid": uuid, "parentUuid": parent, "sessionId": ID,
        "timestamp": format!("2026-03-01T10:00:{second:02}.000Z"), "type": kind,
        "cwd": "/home/dev/demo", "version": "0.21.3"});
    if let (Some(r), Value::Object(mut more)) = (r.as_object_mut(), more) {
        r.append(&mut more);
    }
    r.to_string()
}

fn answer(parts: Value, prompt: u64, cached: u64) -> Value {
    json!({"model": "qwen3-coder-plus", "contextWindowSize": 1_000_000,
        "usageMetadata": {"promptTokenCount": prompt, "candidatesTokenCount": 10,
            "cachedContentTokenCount": cached, "thoughtsTokenCount": 2},
        "message": {"role": "model", "parts": parts}})
}

fn write(dir: &Path, lines: &[String]) -> PathBuf {
    let chats = dir.join("projects/-home-dev-demo/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let path = chats.join(format!("{ID}.jsonl"));
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// A prompt, an answer calling a tool that fails, the result, an answer
/// then rewound (its branch left), a prompt after the rewind, an answer
/// written in two records of one uuid, a subagent, a title, and a system
/// record of a kind not known.
fn session(dir: &Path) -> PathBuf {
    let user = |text: &str| json!({"message": {"role": "user", "parts": [{"text": text}]}});
    write(
        dir,
        &[
            record("u1", None, 0, "user", user("List the files here")),
            record(
                "a1",
                Some("u1"),
                3,
                "assistant",
                answer(
                    json!([{"text": "Need to list.", "thought": true}, {"text": "Let me look."},
                        {"functionCall": {"id": "call_1", "name": "run_shell_command", "args": {"command": "ls"}}}]),
                    9000,
                    6000,
                ),
            ),
            record(
                "t1",
                Some("a1"),
                4,
                "tool_result",
                json!({"message": {"role": "user", "parts": [{"functionResponse": {"id": "call_1",
                        "name": "run_shell_command", "response": {"error": "ls: not found"}}}]},
                    "toolCallResult": {"callId": "call_1", "status": "error"}}),
            ),
            record(
                "a2",
                Some("t1"),
                6,
                "assistant",
                answer(json!([{"text": "Gone wrong."}]), 500, 0),
            ),
            record("u2", Some("t1"), 8, "user", user("Try again")),
            record(
                "a3",
                Some("u2"),
                9,
                "assistant",
                answer(json!([{"text": "A README"}]), 9100, 9000),
            ),
            record(
                "a3",
                Some("u2"),
                10,
                "assistant",
                answer(json!([{"text": " and src."}]), 9200, 9000),
            ),
            record(
                "s1",
                Some("a3"),
                11,
                "user",
                json!({"isSidechain": true, "agentId": "explore-1",
                    "message": {"role": "user", "parts": [{"text": "scan"}]}}),
            ),
            record(
                "c1",
                Some("a3"),
                12,
                "system",
                json!({"subtype": "custom_title", "systemPayload": {"customTitle": "Inspect demo repo"}}),
            ),
            record(
                "x1",
                Some("c1"),
                13,
                "system",
                json!({"subtype": "hologram"}),
            ),
        ],
    )
}

#[test]
fn a_session_lists_with_its_title_folder_and_times() {
    let dir = tempfile::tempdir().unwrap();
    let path = session(dir.path());
    assert_eq!(
        QwenHome::open(dir.path()).session_files(),
        vec![path.clone()]
    );
    let r = record_at(&path);
    assert_eq!(r.error, None);
    assert_eq!((r.agent, r.id.as_str()), (Agent::Qwen, ID));
    assert_eq!(
        (r.title.as_str(), r.first_prompt.as_str()),
        ("Inspect demo repo", "List the files here")
    );
    assert_eq!(r.cwd.as_deref(), Some("/home/dev/demo"));
    assert_eq!(r.last_used_at, parse_time("2026-03-01T10:00:13Z").unwrap());
}

#[test]
fn the_chain_from_the_last_record_is_the_conversation_and_every_answer_counts() {
    let dir = tempfile::tempdir().unwrap();
    let read = QwenHome::read(&record_at(&session(dir.path()))).unwrap();
    let shown: Vec<String> = read.main.context.messages().map(|m| m.one_line()).collect();
    assert_eq!(shown.len(), 5, "{shown:?}");
    assert!(shown[1].contains("Need to list."), "{shown:?}");
    assert!(shown[2].contains("ls: not found"), "{shown:?}");
    assert_eq!(shown[3], "Try again", "the rewound answer is off the chain");
    assert!(shown[4].contains("A README") && shown[4].contains("and src."));
    assert_eq!(read.main.lines[4].len(), 2, "one message from two records");
    let failed = read.main.context.message(2).unwrap();
    assert!(
        Value::Object(failed.raw().clone())
            .to_string()
            .contains("\"execution_status\":\"error\"")
    );
    // Every answer's tokens, the rewound one's too; a3 once, as its last record.
    let u = read.usage.total();
    assert_eq!(
        (u.input, u.cache_read, u.output, u.thoughts),
        (3000 + 500 + 200, 6000 + 9000, 30, 6)
    );
    let c = read.context.unwrap();
    assert_eq!(
        (c.tokens, c.window, c.messages_seen),
        (9200, Some(1_000_000), 5)
    );
    assert_eq!(read.others.len(), 1);
    assert_eq!(read.others[0].context.id(), "agent-explore-1");
    assert_eq!(
        read.skipped.unknown_types,
        [("system/hologram".to_string(), 1)]
    );
}

#[test]
fn a_chain_that_loops_or_names_a_missing_record_is_read_as_far_as_it_goes() {
    let dir = tempfile::tempdir().unwrap();
    let user = |text: &str| json!({"message": {"role": "user", "parts": [{"text": text}]}});
    let path = write(
        dir.path(),
        &[
            record("u1", Some("u2"), 0, "user", user("one")),
            record("u2", Some("u1"), 1, "user", user("two")),
        ],
    );
    let read = QwenHome::read(&record_at(&path)).unwrap();
    assert_eq!(read.main.context.len(), 2);
    assert!(
        read.skipped.other[0].contains("loops"),
        "{:?}",
        read.skipped
    );
    let path = write(
        dir.path(),
        &[record("u3", Some("gone"), 0, "user", user("three"))],
    );
    let read = QwenHome::read(&record_at(&path)).unwrap();
    assert_eq!(read.main.context.len(), 1);
    assert!(read.skipped.other[0].contains("not in the file"));
}
