//! A real terminal with other agents' sessions beside Loki's: a Claude
//! Code session found in the mixed list, opened and read, then resumed
//! (printed, as `--print command` asks: this machine has no `claude`).

use crate::common::tmux::Tmux;
use crate::common::*;
use loki_sessions::demo::agents::{self, AgentsSpec};

/// The binary run with `args` in a terminal whose home is `home`, with the
/// cache and data folders (the trash) under `tmp` and no config: never the
/// person's own agents' folders or trash (the OpenCode database the
/// fixtures made is moved there first: [`fixtures`]).
fn in_a_terminal(tmp: &std::path::Path, home: &std::path::Path, args: &str) -> String {
    format!(
        "{} XDG_CACHE_HOME={} XDG_DATA_HOME={} {} {args} ; sleep 60",
        sandbox::shell_env_at(home),
        tmp.join("cache").display(),
        tmp.join("data").display(),
        bin().display(),
    )
}

/// The agents' fixtures made in `home`, the OpenCode database moved to
/// the data folder `in_a_terminal` names (where OpenCode keeps it).
fn fixtures(tmp: &std::path::Path, home: &std::path::Path) -> agents::AgentsSummary {
    let made = agents::generate(
        home,
        &AgentsSpec::fixtures(loki_sessions::store::now_seconds()),
    )
    .unwrap();
    sandbox::opencode_into(home, &tmp.join("data"));
    made
}

#[test]
fn a_claude_code_session_from_a_mixed_list_opens_reads_and_resumes_in_a_real_terminal() {
    let (tmp, root) = demo_store(5, 6, &[]);
    let home = tmp.path().join("home");
    let made = fixtures(tmp.path(), &home);
    let before = snapshot(&home);
    let out = tmp.path().join("out");
    let code = tmp.path().join("code");
    let command = in_a_terminal(
        tmp.path(),
        &home,
        &format!(
            "--root {} --user tester --print command > {} ; echo $? > {}",
            root.display(),
            out.display(),
            code.display()
        ),
    );
    let ui = Tmux::start(&command);
    let total = 5 + made.sessions();
    let screen = ui.wait_for(&format!("{total} sessions"));
    assert!(
        screen.contains("AGENT") && screen.contains("claude") && screen.contains("codex"),
        "{screen}"
    );

    // F4 twice: Loki's sessions, then Claude Code's alone.
    ui.keys(&["F4"]);
    ui.wait_for("@loki");
    ui.keys(&["F4"]);
    ui.wait_for("@claude");
    ui.text("login fix");
    // The best match first, right under the header.
    let screen = ui.wait_for_first_row("claude   Login fix");
    assert!(!screen.contains("gemini "), "{screen}");

    // Open it: the header says whose it is and what it spent.
    ui.keys(&["Tab"]);
    let screen = ui.wait_for(" · out ");
    assert!(screen.contains("Claude Code · Login fix"), "{screen}");
    assert!(screen.contains("messages"), "{screen}");
    // Read the last message full screen, then go back to the list.
    ui.keys(&["Enter"]);
    ui.wait_for("lines ");
    ui.keys(&["Escape"]);
    ui.wait_for(" · out ");
    ui.keys(&["Escape"]);
    ui.wait_for("@claude");

    // Enter resumes: printed, as asked.
    ui.keys(&["Enter"]);
    let printed = ui.wait_for_file(&code);
    assert_eq!(printed.trim(), "0");
    let line = std::fs::read_to_string(&out).unwrap();
    let id = made
        .claude
        .iter()
        .find(|id| line.contains(id.as_str()))
        .expect("a Claude Code id");
    assert!(
        line.starts_with("cd /home/dev/src/")
            && line.trim_end().ends_with(&format!("claude --resume={id}")),
        "{line}"
    );
    assert_eq!(
        before,
        snapshot(&home),
        "the UI wrote under the agents' folders"
    );
}

#[test]
fn enter_on_a_session_whose_agent_is_not_installed_keeps_the_ui_in_a_real_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    fixtures(tmp.path(), &home);
    let code = tmp.path().join("code");
    // A PATH without `claude`, whatever this machine has.
    let bare = tmp.path().join("bin");
    std::fs::create_dir(&bare).unwrap();
    let command = in_a_terminal(
        tmp.path(),
        &home,
        &format!("--agent claude ; echo $? > {}", code.display()),
    );
    let ui = Tmux::start(&format!("PATH={}:/usr/bin:/bin {command}", bare.display()));
    ui.wait_for("Login fix");
    ui.keys(&["Enter"]);
    let screen = ui.wait_for("is not installed here");
    assert!(screen.contains("Claude Code"), "{screen}");
    assert!(
        screen.contains("Login fix"),
        "the list is still there: {screen}"
    );
    assert!(!code.exists(), "the UI ended");
    // It goes on answering keys, and ends when asked.
    ui.keys(&["Escape"]);
    ui.wait_for("Login fix");
    ui.keys(&["Escape"]);
    assert_eq!(ui.wait_for_file(&code).trim(), "130");
}

#[test]
fn r_makes_a_claude_code_session_resumable_beside_the_original_in_a_real_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    fixtures(tmp.path(), &home);
    let before = snapshot(&home);
    let command = in_a_terminal(tmp.path(), &home, "--agent claude");
    let ui = Tmux::start(&command);
    ui.wait_for("Login fix");
    ui.text("login fix");
    ui.wait_for("2 of 8");
    ui.keys(&["Tab"]);
    ui.wait_for(" · out ");
    // R, then every tool result over 10 tokens: something to replace.
    ui.keys(&["R"]);
    ui.wait_for("Resumable: media, [results > 10,000 tokens]");
    ui.text("10");
    // Planned once the counts (and those of the fixed copies) are in: the
    // panel states what it saves.
    ui.wait_for("[results > 10 tokens], all turns (typing)   ");
    ui.wait_for("−");
    ui.keys(&["Enter"]);
    let screen = ui.wait_for("Make it resumable?");
    assert!(
        screen.contains("Clears ") && screen.contains("file "),
        "{screen}"
    );
    assert!(screen.contains("beside the original"), "{screen}");
    ui.keys(&["y"]);
    ui.wait_for(": new session ");
    let after = snapshot(&home);
    let added: Vec<_> = after.keys().filter(|k| !before.contains_key(*k)).collect();
    assert_eq!(added.len(), 1, "one new session file: {added:?}");
    for (path, bytes) in &before {
        assert_eq!(
            after.get(path),
            Some(bytes),
            "{} is untouched",
            path.display()
        );
    }
}

/// Loki's 5 demo sessions beside every other agent's fixtures, whose files
/// look written a day ago (none is a session its agent may be writing), in
/// a UI showing them all (so F4 and `a` have every agent to offer). Its
/// trash is under `tmp/data`.
fn mixed_store_in_a_terminal() -> (tempfile::TempDir, std::path::PathBuf, Tmux) {
    let (tmp, root) = demo_store(5, 6, &[]);
    let home = tmp.path().join("home");
    let made = fixtures(tmp.path(), &home);
    let day_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(86_400);
    for path in snapshot(&home).keys().filter(|p| p.is_file()) {
        let f = std::fs::File::options().append(true).open(path).unwrap();
        f.set_modified(day_ago).unwrap();
    }
    let command = in_a_terminal(
        tmp.path(),
        &home,
        &format!("--root {} --user tester --print command", root.display()),
    );
    let ui = Tmux::start(&command);
    // Every agent's sessions listed: F4 before the other agents' scan is
    // in would find only Loki's to choose from.
    let total = 5 + made.sessions();
    ui.wait_for(&format!("{total} sessions"));
    (tmp, home, ui)
}

#[test]
fn a_claude_code_session_deleted_in_a_real_terminal_comes_back_from_the_trash() {
    let (_tmp, home, ui) = mixed_store_in_a_terminal();
    let before = snapshot(&home);
    ui.keys(&["F4"]);
    ui.wait_for("@loki");
    ui.keys(&["F4"]);
    ui.wait_for("@claude");
    ui.text("login fix");
    ui.wait_for_first_row("claude   Login fix");
    // F8 asks; y moves it into the trash.
    ui.keys(&["F8"]);
    ui.wait_for("moves to the trash");
    assert_eq!(before, snapshot(&home), "nothing moves before the answer");
    ui.keys(&["y"]);
    ui.wait_for("to the trash: F3 shows it");
    assert_ne!(before, snapshot(&home), "the session left its folder");
    // F3: the trash, newest first; r puts it back, byte for byte.
    ui.keys(&["F3"]);
    let screen = ui.wait_for("puts the selected one back");
    assert!(screen.contains("Claude Code Login fix"), "{screen}");
    ui.keys(&["r"]);
    ui.wait_for("restored Claude Code session");
    assert_eq!(before, snapshot(&home), "every byte is back");
    let screen = ui.wait_for("the trash is empty");
    assert!(!screen.contains("Claude Code Login fix"), "{screen}");
    ui.keys(&["Escape"]);
    ui.wait_for("@claude");
}

#[test]
fn claude_codes_old_sessions_are_purged_into_the_trash_in_a_real_terminal() {
    let (tmp, home, ui) = mixed_store_in_a_terminal();
    let before = snapshot(&home);
    let data = tmp.path().join("data");
    // ^G: Loki's purge; a: Claude Code's, under its own policy.
    ui.keys(&["C-g"]);
    ui.wait_for("purge of:");
    ui.keys(&["a"]);
    ui.wait_for("purge preview of Claude Code sessions");
    ui.wait_for("more than 90d");
    // [ ten times: from 90 days down to 20, the older ones go.
    for _ in 0..10 {
        ui.keys(&["["]);
    }
    ui.wait_for("more than 20d");
    let screen = ui.wait_for(" to move to the trash (");
    let going = screen.lines().filter(|l| l.starts_with("trash ")).count();
    assert!(going > 0, "{screen}");
    ui.keys(&["y"]);
    ui.wait_for(&format!("Move {going} Claude Code sessions to the trash?"));
    assert_eq!(before, snapshot(&home), "nothing moves before the answer");
    ui.keys(&["y"]);
    ui.wait_for("to the trash; `loki-sessions restore");
    let after = snapshot(&home);
    let gone: Vec<_> = before.keys().filter(|p| !after.contains_key(*p)).collect();
    assert!(gone.len() >= going, "{gone:?}");
    assert!(
        gone.iter()
            .all(|p| p.starts_with(home.join(".claude/projects"))),
        "only Claude Code's files moved: {gone:?}"
    );
    // Every byte that left is in the trash.
    let trashed: Vec<Vec<u8>> = snapshot(&data).into_values().collect();
    for path in gone.iter().filter(|p| before[**p] != b"<dir>") {
        assert!(
            trashed.contains(&before[*path]),
            "{} is in the trash",
            path.display()
        );
    }
    // t: the trash; E asks, n keeps them; r puts one back.
    ui.keys(&["t"]);
    ui.wait_for("puts the selected one back");
    ui.keys(&["E"]);
    ui.wait_for(&format!("Delete {going} sessions for good?"));
    ui.keys(&["n"]);
    ui.keys(&["r"]);
    ui.wait_for("restored Claude Code session");
    let back = snapshot(&home);
    assert!(back.len() > after.len(), "a session's files are back");
    assert!(
        back.iter().all(|(p, bytes)| before.get(p) == Some(bytes)),
        "each as it was"
    );
}

#[test]
fn a_delete_in_the_demo_goes_to_the_demos_own_trash_not_the_persons() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    // TMPDIR: the demo store is made here, where the test can find it.
    let command = format!(
        "TMPDIR={} {}",
        tmp.path().display(),
        in_a_terminal(tmp.path(), &tmp.path().join("home"), "--demo")
    );
    let ui = Tmux::start(&command);
    // The list's frame (not the line saying the demo store is being made).
    ui.wait_for(" Sessions ─");
    // The matcher keeps Claude Code's rows, however many are in yet.
    ui.text("@claude ");
    ui.wait_for_first_row("claude ");
    ui.keys(&["F8"]);
    ui.wait_for("moves to the trash");
    ui.keys(&["y"]);
    ui.wait_for("to the trash: F3 shows it");
    assert!(
        !data.join("loki-sessions").exists(),
        "the person's trash was used"
    );
    let demo = std::fs::read_dir(tmp.path())
        .unwrap()
        .flatten()
        .find(|d| {
            d.file_name()
                .to_string_lossy()
                .starts_with("loki-sessions-demo-")
        })
        .expect("the demo store")
        .path();
    assert_eq!(std::fs::read_dir(demo.join(".trash")).unwrap().count(), 1);
    ui.keys(&["F3"]);
    ui.wait_for("1 session, ");
}

#[test]
fn the_usage_dashboard_opens_in_a_real_terminal_and_goes_back() {
    let (tmp, root) = demo_store(3, 4, &[]);
    let home = tmp.path().join("home");
    let made = fixtures(tmp.path(), &home);
    let command = in_a_terminal(
        tmp.path(),
        &home,
        &format!("--root {} --user tester", root.display()),
    );
    let ui = Tmux::start(&command);
    let total = 3 + made.sessions();
    ui.wait_for(&format!("{total} sessions"));
    // The list's usage comes from the index, built in the background; the
    // dashboard adds it up again as it comes.
    ui.keys(&["F10"]);
    let screen = ui.wait_for("Cost per day");
    assert!(screen.contains("Usage: the last 30 days"), "{screen}");
    assert!(
        screen.contains("Projects") && screen.contains("Agents"),
        "{screen}"
    );
    ui.keys(&["]"]);
    let screen = ui.wait_for("the last 90 days");
    assert!(screen.contains("no price for acme-coder-7"), "{screen}");
    ui.keys(&["Escape"]);
    ui.wait_for(&format!("{total} sessions"));
}

#[test]
fn a_search_hit_in_a_subagent_opens_it_read_only_in_a_real_terminal() {
    let (tmp, root) = demo_store(3, 6, &[]);
    let home = tmp.path().join("home");
    fixtures(tmp.path(), &home);
    let before = snapshot(&home);
    let ui = Tmux::start(&in_a_terminal(
        tmp.path(),
        &home,
        &format!("--root {} --user tester", root.display()),
    ));
    ui.wait_for(" sessions");
    // The task a Claude Code session gave its subagent, said in both.
    ui.keys(&["C-f"]);
    ui.text("Find why the test fails");
    // The session's hits, one row until Enter opens them.
    ui.wait_for("▸ ");
    ui.keys(&["Enter"]);
    ui.wait_for("▾ ");
    // Its hits, one by one, until one is in the subagent's own thread.
    let mut opened = None;
    for _ in 0..8 {
        ui.keys(&["Down", "Tab"]);
        let screen = ui.wait_for("Esc back");
        if screen.contains("(read only) of") {
            opened = Some(screen);
            break;
        }
        ui.keys(&["Escape"]);
        ui.wait_for("messages matching");
    }
    let screen = opened.expect("a hit inside the subagent opened it");
    assert!(screen.contains("agent-"), "{screen}");
    assert!(screen.contains("Find why the test fails"), "{screen}");
    assert!(!screen.contains("t b trim"), "no trim offered: {screen}");
    // A trim is refused there, with where to do it.
    ui.keys(&["t"]);
    ui.wait_for("a side conversation is read only here");
    ui.keys(&["Escape"]);
    ui.wait_for("messages matching");
    assert_eq!(
        snapshot(&home),
        before,
        "nothing of the agent's was written"
    );
}
