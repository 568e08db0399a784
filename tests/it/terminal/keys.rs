//! A real terminal: the binary runs inside tmux on a temporary store; the
//! test types keys, reads the screen, and checks the disk and the output.
//! It needs tmux (.ci/run installs it) and fails without it. To leave these
//! tests out where tmux is missing, filter them so the summary says so:
//! `cargo test -- --skip real_terminal`.

use crate::common::tmux::{Tmux, ui_command};
use crate::common::*;
use std::path::{Path, PathBuf};

fn active_context(session_dir: &Path) -> (String, serde_json::Value) {
    let memory = session_dir.join("memory");
    let session: serde_json::Value =
        serde_json::from_slice(&std::fs::read(memory.join("session.json")).unwrap()).unwrap();
    let id = session["active_context_id"].as_str().unwrap().to_string();
    let ctx =
        serde_json::from_slice(&std::fs::read(memory.join(format!("{id}.json"))).unwrap()).unwrap();
    (id, ctx)
}

#[test]
fn search_open_trim_purge_preview_and_resume_in_a_real_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("store");
    std::fs::create_dir(&root).unwrap();
    ok(
        &root,
        &[
            "demo",
            "--sessions",
            "60",
            "--messages",
            "14",
            "--big-context",
            "200",
        ],
    );
    let out = tmp.path().join("out");
    let code = tmp.path().join("code");
    let ui = Tmux::start(&ui_command(&root, &out, &code));
    ui.wait_for("60 sessions");

    // Typing filters the list at once.
    ui.text("login");
    let screen = ui.wait_for(" of 60");
    assert!(
        screen.contains("fix-the-login-bug"),
        "filtered list:\n{screen}"
    );
    let names: Vec<String> = json(&root, &["list", "--json"])
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["name"].as_str().unwrap().contains("login"))
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect();
    assert!(!names.is_empty());

    // Open the best match and trim it to the last 4 messages.
    ui.keys(&["Tab"]);
    ui.wait_for("Messages");
    let header = ui.screen();
    let session_id = names
        .iter()
        .find(|id| {
            let (ctx_id, _) = active_context(&sessions(&root).join(id));
            header.contains(&ctx_id[..20])
        })
        .expect("the viewer shows the active context of a login session")
        .clone();
    let dir = sessions(&root).join(&session_id);
    let (before_id, before) = active_context(&dir);

    // m gives the mouse to the terminal (to select text) and takes it back.
    assert!(ui.mouse_captured(), "the UI starts with the mouse");
    ui.keys(&["m"]);
    ui.wait_for("mouse off");
    assert!(!ui.mouse_captured(), "the terminal has the mouse");
    ui.keys(&["m"]);
    ui.wait_for("mouse on");
    assert!(ui.mouse_captured());
    ui.keys(&["t"]);
    ui.wait_for("Trim:");
    ui.text("4");
    ui.wait_for("keep the last 4 messages");
    ui.keys(&["Enter"]);
    ui.wait_for("trimmed: new active context");
    let (after_id, after) = active_context(&dir);
    assert_ne!(after_id, before_id);
    assert_eq!(
        after["messages"].as_array().unwrap().len(),
        2 + 4,
        "system prompt, tools and 4"
    );
    assert_eq!(after["origin_context_id"], before_id.as_str());
    let parent: serde_json::Value = serde_json::from_slice(
        &std::fs::read(dir.join("memory").join(format!("{before_id}.json"))).unwrap(),
    )
    .unwrap();
    assert_eq!(parent["children"], serde_json::json!([after_id]));
    assert_eq!(
        parent["messages"], before["messages"],
        "the parent keeps every message (undo)"
    );

    // The purge preview shows its plan; leaving it deletes nothing.
    ui.keys(&["Escape"]);
    ui.wait_for("Sessions");
    ui.keys(&["C-g"]);
    let screen = ui.wait_for("to delete");
    assert!(screen.contains("Purge preview"), "{screen}");
    ui.keys(&["Escape"]);
    ui.wait_for("Sessions");
    assert_eq!(
        json(&root, &["list", "--json"]).as_array().unwrap().len(),
        60
    );

    // Enter resumes the selected session: its workspace on stdout, exit 0.
    ui.keys(&["Enter"]);
    let exit = ui.wait_for_file(&code);
    assert_eq!(exit.trim(), "0");
    let printed = std::fs::read_to_string(&out).unwrap();
    let workspace = PathBuf::from(printed.trim());
    assert!(
        workspace.ends_with("workspace") && workspace.starts_with(sessions(&root)),
        "{printed:?}"
    );
    assert_eq!(
        printed.lines().count(),
        1,
        "the UI itself never writes to stdout"
    );
}

#[test]
fn cancel_in_a_real_terminal_exits_130_and_prints_nothing() {
    let (tmp, root) = demo_store(5, 4, &[]);
    let out = tmp.path().join("out");
    let code = tmp.path().join("code");
    let ui = Tmux::start(&ui_command(&root, &out, &code));
    ui.wait_for("5 sessions");
    ui.text("zz");
    ui.wait_for("0 of 5");
    ui.keys(&["Escape"]);
    ui.wait_for("5 sessions");
    ui.keys(&["Escape"]);
    assert_eq!(ui.wait_for_file(&code).trim(), "130");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "");
}

#[test]
fn transcript_search_finds_a_folded_tool_result_in_a_real_terminal() {
    let (tmp, root) = demo_store(5, 14, &[]);
    // A tool's result of 40 lines, a word of its own on line 30: with tools
    // truncated (the default) only its first lines show.
    let id = json(&root, &["list", "--json"])[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let dir = sessions(&root).join(&id);
    let (ctx_id, mut ctx) = active_context(&dir);
    let messages = ctx["messages"].as_array_mut().unwrap();
    let result = messages
        .iter_mut()
        .find(|m| m["content"][0]["type"] == "tool_result")
        .expect("the demo session has a tool result");
    let log: Vec<String> = (1..=40)
        .map(|i| {
            if i == 30 {
                "line 30: the zanzibar checksum failed".to_string()
            } else {
                format!("line {i}: ok")
            }
        })
        .collect();
    result["content"][0]["content"] = serde_json::Value::String(log.join("\n"));
    result.as_object_mut().unwrap().remove("token_count");
    let file = dir.join("memory").join(format!("{ctx_id}.json"));
    std::fs::write(&file, serde_json::to_vec_pretty(&ctx).unwrap()).unwrap();

    let out = tmp.path().join("out");
    let code = tmp.path().join("code");
    let ui = Tmux::start(&ui_command(&root, &out, &code));
    // tmux takes what the UI copies (OSC 52) into a buffer of its own.
    assert!(
        ui.cmd(&["set", "-g", "set-clipboard", "on"])
            .status()
            .unwrap()
            .success()
    );
    ui.wait_for("5 sessions");
    ui.text(&id[..17]);
    ui.wait_for("1 of 5");
    ui.keys(&["Tab"]);
    ui.wait_for("Messages");
    ui.keys(&["Tab"]);
    ui.wait_for("Transcript:");
    ui.keys(&["g"]);
    assert!(!ui.screen().contains("zanzibar"));
    ui.keys(&["/"]);
    ui.text("zanzibar");
    let screen = ui.wait_for("1/1");
    assert!(
        screen.contains("line 30: the zanzibar checksum failed"),
        "the folded line is on screen:\n{screen}"
    );
    ui.keys(&["Enter"]);
    ui.keys(&["Y"]);
    ui.wait_for("sent the session id");
    let buffer = ui.cmd(&["show-buffer"]).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&buffer.stdout),
        id,
        "OSC 52 reached tmux"
    );
    ui.keys(&["Escape"]);
    ui.wait_for("Messages");
    ui.keys(&["Escape"]);
    ui.wait_for("1 of 5");
    ui.keys(&["Escape", "Escape"]);
    assert_eq!(ui.wait_for_file(&code).trim(), "130");
}

#[test]
fn mark_and_drop_a_message_in_a_real_terminal() {
    let (tmp, root) = demo_store(5, 14, &[]);
    let id = json(&root, &["list", "--json"])[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let dir = sessions(&root).join(&id);
    let (before_id, before) = active_context(&dir);
    let messages = before["messages"].as_array().unwrap();
    let last = messages.last().unwrap()["id"].as_str().unwrap().to_string();

    let out = tmp.path().join("out");
    let code = tmp.path().join("code");
    let ui = Tmux::start(&ui_command(&root, &out, &code));
    ui.wait_for("5 sessions");
    ui.text(&id[..17]);
    ui.wait_for("1 of 5");
    ui.keys(&["Tab"]);
    ui.wait_for("% of the window");
    // The viewer opens on the last message: Space marks it.
    ui.keys(&["Space"]);
    ui.wait_for("Drop: 1 marked");
    assert_eq!(active_context(&dir).0, before_id, "nothing written yet");
    ui.keys(&["Enter"]);
    ui.wait_for("new fork; c switches back");
    let (after_id, after) = active_context(&dir);
    assert_ne!(after_id, before_id);
    assert_eq!(after["origin_context_id"], before_id.as_str());
    let kept: Vec<&str> = after["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert!(!kept.contains(&last.as_str()), "the marked message is gone");
    assert!(kept.len() < messages.len());
    ui.keys(&["Escape", "Escape", "Escape"]);
    assert_eq!(ui.wait_for_file(&code).trim(), "130");
}

/// On a big store the rows arrive in parts while the UI starts; Enter
/// pressed as soon as the first rows show resumes the newest session, the
/// one on top, whatever order the parts came in.
#[test]
fn enter_at_once_on_20000_sessions_resumes_the_newest_in_a_real_terminal() {
    let (tmp, root) = demo_store(20_000, 2, &["--plain"]);
    let newest = json(&root, &["list", "--json"])[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let out = tmp.path().join("out");
    let code = tmp.path().join("code");
    let ui = Tmux::start(&ui_command(&root, &out, &code));
    ui.wait_for("sessions");
    ui.keys(&["Enter"]);
    assert_eq!(ui.wait_for_file(&code).trim(), "0");
    let printed = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        PathBuf::from(printed.trim()),
        sessions(&root).join(&newest).join("workspace"),
        "Enter at once resumes the newest session"
    );
}
