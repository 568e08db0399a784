//! Esc in a terminal that speaks the kitty keyboard protocol: the UI asks
//! for it, takes its flags, and then two Esc keys that arrive in one read
//! are two keys (a legacy terminal sends `ESC ESC`, which reads as one).
//! A small Python driver plays the terminal (tests/pty_term.py): tmux does
//! not speak the protocol.

use crate::common::*;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// Runs the UI on a store of 5 sessions under a terminal of `mode`, typing
/// `keys` (see the driver), and returns what the driver saw.
fn run_ui(mode: &str, keys: &str) -> Value {
    let (tmp, root) = demo_store(5, 4, &[]);
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pty_term.py");
    let out = Command::new("python3")
        .in_sandbox()
        .env("XDG_CACHE_HOME", tmp.path().join("cache"))
        .env_remove("COLORFGBG")
        .arg(driver)
        .args([mode, keys, "--"])
        .arg(bin())
        .arg("--root")
        .arg(&root)
        .args(["--user", "tester"])
        .output()
        .expect("python3 runs the terminal driver");
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text:?}"))
}

#[test]
fn two_esc_keys_in_one_read_are_two_where_the_terminal_speaks_the_protocol() {
    // The first Esc clears the query, the second quits (130, cancelled).
    let seen = run_ui("kitty", "zz|<esc><esc>");
    assert_eq!(seen["pushed"], true, "{seen}");
    assert_eq!(seen["exited"], true, "the second Esc was lost: {seen}");
    assert_eq!(seen["code"], 130, "{seen}");
    assert_eq!(seen["popped"], true, "the flags outlive the UI: {seen}");
}

#[test]
fn a_terminal_that_does_not_answer_the_query_gets_no_protocol_codes() {
    let seen = run_ui("legacy", "zz|<esc>|<esc>");
    assert_eq!(seen["pushed"], false, "{seen}");
    assert_eq!(seen["popped"], false, "{seen}");
    assert_eq!(seen["exited"], true, "{seen}");
    assert_eq!(seen["code"], 130, "{seen}");
}
