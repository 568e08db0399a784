//! The binary in tmux following the disk: a message another process
//! (`tests/agent_sim.py`) writes shows on screen without a key pressed,
//! in the list and in the viewer following the end.

use crate::common::tmux::{Tmux, ui_command};
use crate::common::*;
use std::path::Path;
use std::process::Command;

#[test]
fn real_terminal_a_message_written_by_another_process_appears_without_a_key() {
    let (tmp, root) = demo_store(5, 6, &["--plain"]);
    let first = json(&root, &["list", "--json"])[0].clone();
    let id = first["id"].as_str().unwrap().to_string();
    let (out, code) = (tmp.path().join("out"), tmp.path().join("code"));
    let ui = Tmux::start(&ui_command(&root, &out, &code));
    ui.wait_for("5 sessions");
    ui.keys(&["Tab"]);
    ui.wait_for("context");
    ui.keys(&["F"]);
    ui.wait_for("following the end");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/agent_sim.py");
    let status = Command::new("python3")
        .arg(script)
        .arg(sessions(&root).join(&id))
        .arg("1")
        .arg(tmp.path().join("agent.log"))
        .status()
        .unwrap();
    assert!(status.success());
    // The viewer follows the end: the message is selected, its text shown.
    ui.wait_for("agent message 0");
    // And the list behind it marks the session live.
    ui.keys(&["Escape"]);
    ui.wait_for("● live");
}
