//! What a person does in a real terminal besides typing keys: pasting
//! (bracketed paste), a signal from another process, and finding a session
//! by something said in it. tmux runs the binary (see tests/it/terminal/keys.rs).

use crate::common::tmux::{Tmux, rss_bytes, ui_command, ui_command_then, ui_pid};
use crate::common::*;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A demo store of `n` sessions in a temporary folder.
fn store(n: usize) -> (tempfile::TempDir, PathBuf) {
    demo_store(n, 8, &[])
}

fn files(tmp: &Path) -> (PathBuf, PathBuf) {
    (tmp.join("out"), tmp.join("code"))
}

#[test]
fn a_paste_is_text_in_a_real_terminal_never_enter_and_never_gigabytes() {
    let (tmp, root) = store(20);
    let (out, code) = files(tmp.path());
    let ui = Tmux::start(&ui_command(&root, &out, &code));
    ui.wait_for("20 sessions");
    let pid = ui_pid(ui.pane_pid());

    // A newline in a paste does not press Enter: nothing is resumed, though
    // the pasted text selects a session (Enter would resume it).
    let listed = json(&root, &["list", "--json"]);
    let prompt = listed[0]["first_prompt"].as_str().unwrap().to_string();
    let words: Vec<&str> = prompt.split_whitespace().take(3).collect();
    assert_eq!(words.len(), 3, "{prompt:?}");
    // Three words of a session's first prompt, a newline after each: the
    // query becomes them with spaces, which the prompt holds.
    ui.paste(&format!("{}\n{}\n{}\n", words[0], words[1], words[2]));
    let typed = format!("› {} {} {}", words[0], words[1], words[2]);
    let deadline = Instant::now() + patience(Duration::from_secs(20));
    loop {
        let screen = ui.wait_for(&typed);
        let matching = screen
            .split_whitespace()
            .collect::<Vec<_>>()
            .windows(3)
            .find(|w| w[1] == "of" && w[2] == "20")
            .map(|w| w[0].to_string());
        if matching.as_deref().is_some_and(|n| n != "0") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the pasted name selects a session: {screen}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(300));
    assert!(!code.exists(), "the paste resumed a session");

    // 200 KB in one paste: cut to the search's limit, with a note, and the
    // process stays small.
    ui.keys(&["C-u"]);
    ui.paste(&"x".repeat(200_000));
    ui.wait_for("at most 200 characters");
    let rss = rss_bytes(pid);
    assert!(rss < 150 << 20, "{} MB after a 200 KB paste", rss >> 20);

    // Ctrl-C right after a paste ends the UI at once.
    ui.paste(&"y".repeat(2_000));
    let pressed = Instant::now();
    ui.keys(&["C-c"]);
    assert_eq!(ui.wait_for_file(&code).trim(), "130");
    assert!(
        pressed.elapsed() < patience(Duration::from_secs(2)),
        "Ctrl-C took {:?}",
        pressed.elapsed()
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "");
}

#[test]
fn sigterm_restores_the_terminal_in_a_real_terminal() {
    let (tmp, root) = store(5);
    let (out, code) = files(tmp.path());
    let stty = tmp.path().join("stty");
    let after = format!("stty -a > {} ;", stty.display());
    let ui = Tmux::start(&ui_command_then(&root, &out, &code, &after));
    ui.wait_for("5 sessions");
    let pid = ui_pid(ui.pane_pid());
    let status = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(ui.wait_for_file(&code).trim(), "143", "128 + SIGTERM");
    let modes = ui.wait_for_file(&stty);
    let words: Vec<&str> = modes.split_whitespace().collect();
    assert!(
        words.contains(&"icanon") && words.contains(&"echo"),
        "the terminal is back in cooked mode: {modes}"
    );
    let screen = ui.screen();
    assert!(
        !screen.contains("sessions"),
        "the main screen is back: {screen}"
    );
}

#[test]
fn a_word_said_only_in_a_message_finds_and_resumes_its_session_in_a_real_terminal() {
    let (tmp, root) = store(30);
    // A session whose name and prompt do not hold the word; a tool result does.
    let id = ok(&root, &["new", "Tidy the release checklist", "--no-purge"])
        .trim()
        .to_string();
    let memory = sessions(&root).join(&id).join("memory");
    let session: Value =
        serde_json::from_slice(&std::fs::read(memory.join("session.json")).unwrap()).unwrap();
    let ctx_id = session["active_context_id"].as_str().unwrap().to_string();
    let messages = json!([
        {"role": "user", "id": "u1", "content": [{"type": "text", "text": "Tidy the release checklist"}], "_sequence_number": 3},
        {"role": "tool", "id": "t1", "content": [{"type": "tool_result", "call_id": "c", "content": "stack trace: xylophonequartz overflow"}], "_sequence_number": 4}
    ]);
    let ctx = json!({"messages": messages, "id": ctx_id, "content_map": {},
        "anchor_points": [["system_prompt", 0], ["tools", 0], ["messages", 2]],
        "message_sequence": 2, "_mutation_counter": 5, "children": []});
    std::fs::write(
        memory.join(format!("{ctx_id}.json")),
        serde_json::to_vec_pretty(&ctx).unwrap(),
    )
    .unwrap();
    let (out, code) = files(tmp.path());
    let ui = Tmux::start(&ui_command(&root, &out, &code));
    ui.wait_for("31 sessions");
    // Searching names finds nothing; searching messages finds it.
    ui.text("xylophonequartz");
    ui.wait_for("No session matches");
    ui.keys(&["C-f"]);
    let screen = ui.wait_for("1 message matching");
    assert!(screen.contains("tidy-the-release-checklist"), "{screen}");
    ui.keys(&["Enter"]);
    assert_eq!(ui.wait_for_file(&code).trim(), "0");
    let printed = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        PathBuf::from(printed.trim()),
        sessions(&root).join(&id).join("workspace"),
        "the hit's session was resumed"
    );
}

#[test]
fn ctrl_z_suspends_and_fg_comes_back_in_a_real_terminal() {
    let (tmp, root) = store(5);
    let (out, code) = files(tmp.path());
    let stty = tmp.path().join("stty");
    // An interactive shell, for job control, as a person has.
    let ui = Tmux::start("env PS1='shell> ' bash --norc --noprofile -i");
    ui.wait_for("shell>");
    ui.text(&format!(
        "{} XDG_CACHE_HOME={} {} --root {} --user tester > {}",
        sandbox::shell_env(),
        root.with_extension("cache").display(),
        bin().display(),
        root.display(),
        out.display()
    ));
    ui.keys(&["Enter"]);
    ui.wait_for("5 sessions");
    ui.keys(&["C-z"]);
    // The shell has the terminal back, in the mode it left it in.
    ui.wait_for("Stopped");
    ui.text(&format!("stty -a > {}", stty.display()));
    ui.keys(&["Enter"]);
    let modes = ui.wait_for_file(&stty);
    assert!(
        modes.contains(" icanon") && modes.contains(" echo "),
        "{modes}"
    );
    ui.text("fg");
    ui.keys(&["Enter"]);
    // The same screen again, answering keys.
    ui.wait_for("5 sessions");
    ui.text("zzzz-no-such-session");
    ui.wait_for("0 of 5");
    ui.keys(&["C-c"]);
    ui.wait_for("shell>");
    ui.text(&format!("echo $? > {}", code.display()));
    ui.keys(&["Enter"]);
    assert_eq!(ui.wait_for_file(&code).trim(), "130");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "");
}

#[test]
fn o_pages_the_transcript_and_shift_o_opens_the_file_in_the_editor_then_the_ui_is_back() {
    let (tmp, root) = store(3);
    let (out, code) = files(tmp.path());
    let paged = tmp.path().join("paged");
    let edited = tmp.path().join("edited");
    // A pager and an editor that write what they were given and end.
    let command = format!(
        "PAGER='sh -c \"cat > {}\"' VISUAL= EDITOR='sh -c \"printf %s \\\"$1\\\" > {}\" sh' {}",
        paged.display(),
        edited.display(),
        ui_command(&root, &out, &code)
    );
    let ui = Tmux::start(&command);
    ui.wait_for("3 sessions");
    ui.keys(&["Tab"]);
    ui.wait_for("messages");
    ui.keys(&["o"]);
    ui.wait_for("back from the pager");
    let text = ui.wait_for_file(&paged);
    let first = json(&root, &["list", "--json"])[0]["first_prompt"]
        .as_str()
        .unwrap()
        .to_string();
    let words: String = first
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");
    assert!(text.contains(&words), "the transcript was paged: {text}");
    ui.keys(&["O"]);
    ui.wait_for("back from sh");
    let path = PathBuf::from(ui.wait_for_file(&edited));
    assert!(path.is_file() && path.starts_with(&root), "{path:?}");
    // The keys are the UI's again.
    ui.keys(&["Escape"]);
    ui.wait_for("3 sessions");
    assert!(!code.exists(), "the UI is still running");
    let printed = std::fs::read_to_string(&out).unwrap_or_default();
    assert!(printed.is_empty(), "nothing went to stdout: {printed}");
}
