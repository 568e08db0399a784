//! "Make it resumable" on another agent's session: a Claude Code session
//! holding an image pasted in a prompt, an image a tool returned (with
//! Claude Code's own copy in `toolUseResult`), a PDF it read (twice over,
//! as Claude Code stores it) and a large tool output; a Codex rollout with
//! an image in a prompt (and its copy in the `user_message` event). The fix
//! writes a fork beside the original, which is untouched; the fork holds
//! no media bytes, names what it replaced, reads back with exactly the
//! tokens the preview promised, and the preview's figures are the write's.

use super::{Home, readers};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// Base64 of `n` bytes (their value does not matter to anyone here).
fn base64_of(n: usize) -> String {
    "QUJD".repeat(n / 3)
}

fn jsonl(lines: &[Value]) -> String {
    lines.iter().map(|l| l.to_string() + "\n").collect()
}

/// A Claude Code session with media in every place Claude Code keeps it.
fn claude_session(home: &Path, id: &str) -> PathBuf {
    let png = base64_of(30_000);
    let pdf = base64_of(60_000);
    let base = |uuid: &str, parent: Option<&str>, kind: &str| {
        json!({"parentUuid": parent, "isSidechain": false, "userType": "external",
               "cwd": "/home/dev/src/shots", "sessionId": id, "version": "2.1.0",
               "gitBranch": "main", "type": kind, "uuid": uuid,
               "timestamp": "2026-11-30T10:00:00.000Z"})
    };
    let with = |mut line: Value, extra: Value| {
        for (k, v) in extra.as_object().unwrap() {
            line[k] = v.clone();
        }
        line
    };
    let usage = json!({"input_tokens": 10, "cache_creation_input_tokens": 0,
                       "cache_read_input_tokens": 100, "output_tokens": 20});
    let assistant = |n: u32, content: Value| {
        json!({"message": {"id": format!("msg_{n}"), "type": "message", "role": "assistant",
               "model": "claude-sonnet-4-5", "content": content, "stop_reason": "tool_use",
               "usage": usage}, "requestId": format!("req_{n}")})
    };
    let lines = vec![
        with(
            base("u1", None, "user"),
            json!({"message": {"role": "user", "content": [
                {"type": "text", "text": "what is wrong on this screen?"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}}
            ]}}),
        ),
        with(
            base("a1", Some("u1"), "assistant"),
            assistant(
                1,
                json!([
                    {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/home/dev/shot.png"}}
                ]),
            ),
        ),
        with(
            base("t1", Some("a1"), "user"),
            json!({"message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": [
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}}
            ]}
        ]}, "toolUseResult": {"type": "image", "file": {"base64": png, "type": "image/png", "originalSize": 30000}}}),
        ),
        with(
            base("a2", Some("t1"), "assistant"),
            assistant(
                2,
                json!([
                    {"type": "tool_use", "id": "toolu_2", "name": "Read", "input": {"file_path": "/home/dev/spec.pdf"}}
                ]),
            ),
        ),
        with(
            base("t2", Some("a2"), "user"),
            json!({"message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "PDF file read: /home/dev/spec.pdf (58.6KB)"}
        ]}, "toolUseResult": {"type": "pdf", "file": {"filePath": "/home/dev/spec.pdf", "base64": pdf, "originalSize": 60000}}}),
        ),
        with(
            base("m2", Some("t2"), "user"),
            json!({"isMeta": true, "message": {"role": "user", "content": [
                {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": pdf}}
            ]}}),
        ),
        with(
            base("a3", Some("m2"), "assistant"),
            assistant(
                3,
                json!([
                    {"type": "tool_use", "id": "toolu_3", "name": "Bash", "input": {"command": "cargo test"}}
                ]),
            ),
        ),
        with(
            base("t3", Some("a3"), "user"),
            json!({"message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_3", "content": "test result line\n".repeat(4_000)}
        ]}, "toolUseResult": {"stdout": "test result line\n".repeat(4_000), "stderr": ""}}),
        ),
        with(
            base("a4", Some("t3"), "assistant"),
            assistant(
                4,
                json!([
                    {"type": "text", "text": "The button overlaps the header; the tests pass."}
                ]),
            ),
        ),
    ];
    let folder = home.join(".claude/projects/-home-dev-src-shots");
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join(format!("{id}.jsonl"));
    std::fs::write(&path, jsonl(&lines)).unwrap();
    path
}

/// A Codex rollout whose prompt holds an image.
fn codex_session(home: &Path, id: &str) -> PathBuf {
    let url = format!("data:image/jpeg;base64,{}", base64_of(24_000));
    let line = |kind: &str, payload: Value| json!({"timestamp": "2026-11-30T10:00:00.000Z", "type": kind, "payload": payload});
    let lines = vec![
        line(
            "session_meta",
            json!({"id": id, "timestamp": "2026-11-30T10:00:00.000Z",
            "cwd": "/home/dev/src/shots", "originator": "codex_cli_rs", "cli_version": "0.50.0"}),
        ),
        line(
            "turn_context",
            json!({"cwd": "/home/dev/src/shots", "model": "gpt-5-codex"}),
        ),
        line(
            "response_item",
            json!({"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": "why is this layout broken?"},
                {"type": "input_image", "image_url": url}
            ]}),
        ),
        line(
            "event_msg",
            json!({"type": "user_message", "message": "why is this layout broken?", "images": [url]}),
        ),
        line(
            "response_item",
            json!({"type": "message", "role": "assistant", "content": [
                {"type": "output_text", "text": "The grid has no gap."}
            ]}),
        ),
    ];
    let folder = home.join(".codex/sessions/2026/11/30");
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join(format!("rollout-2026-11-30T10-00-00-{id}.jsonl"));
    std::fs::write(&path, jsonl(&lines)).unwrap();
    path
}

/// Previews then applies the fix on `id`; checks what both say against
/// each other, the files and a fresh read of the fork; returns the fork.
fn fix(h: &Home, id: &str, original: &Path, extra: &[&str]) -> (Value, String) {
    let before = std::fs::read(original).unwrap();
    let mut args = vec!["trim", id, "--resumable"];
    args.extend(extra);
    args.push("--json");
    let mut dry = args.clone();
    dry.push("--dry-run");
    let preview = h.json(&dry);
    assert_eq!(
        std::fs::read(original).unwrap(),
        before,
        "a preview writes nothing"
    );
    assert_eq!(preview["new_session_file"], Value::Null);
    let done = h.json(&args);
    assert_eq!(
        std::fs::read(original).unwrap(),
        before,
        "the original is untouched"
    );
    for key in [
        "changed",
        "kept_message_ids",
        "dropped_message_ids",
        "cleared_message_ids",
        "tokens_before",
        "tokens_after",
        "bytes_before",
        "bytes_after",
    ] {
        assert_eq!(preview[key], done[key], "{key}: the preview is the write");
    }
    assert_eq!(done["bytes_before"], before.len() as u64);
    let file = PathBuf::from(done["new_session_file"].as_str().unwrap());
    let fork = std::fs::read_to_string(&file).unwrap();
    assert_eq!(done["bytes_after"], fork.len() as u64);
    let new_id = done["new_session_id"].as_str().unwrap();
    let reread = h.json(&["show", new_id, "--json"]);
    assert_eq!(
        reread["total_tokens"], done["tokens_after"],
        "the fork counts as the preview said"
    );
    assert!(
        done["tokens_after"].as_u64() < done["tokens_before"].as_u64(),
        "{done}"
    );
    (done, fork)
}

#[test]
fn a_claude_session_loses_its_media_and_big_outputs_and_nothing_else() {
    let h = Home::new();
    let id = "5d2c0a64-8c1e-4f7a-9b3d-2e6f1a0c9b11";
    let original = claude_session(&h.home, id);
    let (done, fork) = fix(&h, id, &original, &["--results-over", "5k"]);
    assert!(done["dropped_message_ids"].as_array().unwrap().is_empty());
    // No base64 is left anywhere: not in a block, not in Claude Code's copies.
    assert!(!fork.contains("QUJDQUJD"), "media bytes left in the fork");
    for placeholder in [
        "[image removed: image/png, 29 KiB]",
        "[pdf removed: application/pdf, 59 KiB]",
        "[tool result cleared: ",
    ] {
        assert!(fork.contains(placeholder), "{placeholder} in the fork");
    }
    let lines: Vec<Value> = fork
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 10, "every line kept, and the title after them");
    let title = &lines[9];
    assert_eq!(title["type"], "custom-title");
    assert!(
        title["customTitle"]
            .as_str()
            .unwrap()
            .ends_with(" (resumable)"),
        "{title}"
    );
    // The tool's image: its result keeps its id, the text follows it.
    let t1 = &lines[2]["message"]["content"];
    assert_eq!(t1[0]["type"], "tool_result");
    assert_eq!(t1[0]["tool_use_id"], "toolu_1");
    assert_eq!(t1[1]["type"], "text");
    assert_eq!(
        lines[2]["toolUseResult"],
        "[image removed: image/png, 29 KiB]"
    );
    assert_eq!(lines[4]["toolUseResult"], "[pdf removed: 59 KiB]");
    assert_eq!(
        lines[4]["message"],
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "PDF file read: /home/dev/spec.pdf (58.6KB)"}
        ]}),
        "a small result stays"
    );
    // Lines with nothing to replace are the original's but for the id,
    // and where they came from (their last field, added).
    let original_text = std::fs::read_to_string(&original).unwrap();
    let new_id = done["new_session_id"].as_str().unwrap();
    let last = original_text.lines().last().unwrap().replace(id, new_id);
    let uuid = lines[8]["uuid"].as_str().unwrap();
    let from = json!({"sessionId": id, "messageUuid": uuid});
    let last = format!(
        "{},\"forkedFrom\":{from}}}",
        last.strip_suffix('}').unwrap()
    );
    assert_eq!(fork.lines().nth(8).unwrap(), last);
    // Keeping the last turn only: this session has one, so nothing goes.
    let (one, _) = fix(&h, id, &original, &["--keep-turns", "1"]);
    assert!(one["dropped_message_ids"].as_array().unwrap().is_empty());
}

#[test]
#[ignore = "needs claude-code-log 1.7.0 (PyPI); .ci/run installs it"]
fn claude_code_log_reads_the_fixed_session_as_its_original() {
    let Some(cclog) = readers::claude_code_log() else {
        panic!(
            "claude-code-log {} is not installed: set CLAUDE_CODE_LOG or run .ci/run",
            readers::CLAUDE_CODE_LOG_VERSION
        );
    };
    let h = Home::new();
    let id = "5d2c0a64-8c1e-4f7a-9b3d-2e6f1a0c9b12";
    let original = claude_session(&h.home, id);
    let (seen_before, warned_before) =
        readers::read_with_claude_code_log(&cclog, &original, &h.home).unwrap();
    let (done, _) = fix(&h, id, &original, &["--results-over", "5k"]);
    let file = PathBuf::from(done["new_session_file"].as_str().unwrap());
    let (seen, warned) = readers::read_with_claude_code_log(&cclog, &file, &h.home)
        .unwrap_or_else(|e| panic!("claude-code-log cannot read the fix: {e}"));
    assert_eq!(seen, seen_before, "the same messages");
    assert_eq!(warned, warned_before, "no new warning");
}

#[test]
fn a_codex_rollout_loses_its_images_and_names_its_original() {
    let h = Home::new();
    let id = "019a5b7e-3c2d-7e10-a1b2-c3d4e5f60718";
    let original = codex_session(&h.home, id);
    let (done, fork) = fix(&h, id, &original, &[]);
    assert!(!fork.contains("QUJDQUJD"), "image bytes left in the fork");
    let lines: Vec<Value> = fork
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["payload"]["forked_from_id"], id);
    assert_eq!(lines[0]["payload"]["id"], done["new_session_id"]);
    assert_eq!(
        lines[2]["payload"]["content"][1],
        json!({"type": "input_text", "text": "[image removed: image/jpeg, 23 KiB]"})
    );
    assert_eq!(lines[3]["payload"]["images"], json!([]));
}

#[test]
fn nothing_to_fix_says_so_and_writes_nothing() {
    let h = Home::new();
    let id = "019a5b7e-3c2d-7e10-a1b2-c3d4e5f60719";
    let original = codex_session(&h.home, id);
    let text = std::fs::read_to_string(&original).unwrap();
    let plain: String = text
        .lines()
        .filter(|l| !l.contains("image"))
        .map(|l| l.to_string() + "\n")
        .collect();
    std::fs::write(&original, &plain).unwrap();
    let folder = original.parent().unwrap().to_path_buf();
    let out = h.run(&["trim", id, "--resumable"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("nothing to do"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_dir(folder).unwrap().count(), 1);
    // The options of the fix need the fix.
    let out = h.run(&["trim", id, "--keep-turns", "2"]);
    assert_eq!(out.status.code(), Some(2));
}
