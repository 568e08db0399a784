//! Snapshots of the list and the viewer with other agents' sessions beside
//! Loki's: the agent and project columns, F4's `@agent` filter, and a
//! Claude Code session's header with what it spent. The same fixed clock
//! and masks as the other panes.

use crate::common::sandbox;
use crossterm::event::{KeyCode, KeyModifiers};
use loki_sessions::cli::default_settings;
use loki_sessions::demo::agents::{self, AgentsSpec};
use loki_sessions::demo::{self, DemoSpec};
use loki_sessions::store::{Agent, AgentHomes, Store, StoreKind};
use loki_sessions::tui::headless::Headless;

const NOW: f64 = 1_795_910_400.0 + 12.0 * 3600.0;

fn fixed_clock() -> f64 {
    NOW
}

/// A small Loki tree and every agent's fixtures in a home beside it.
pub(super) fn store() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let spec = DemoSpec {
        sessions: 4,
        messages: 8,
        big_context: 0,
        seed: 7,
        user: "ann".into(),
        now: NOW,
        extras: false,
    };
    demo::generate(dir.path(), &spec, &|_| {}).unwrap();
    agents::generate(&dir.path().join("home"), &AgentsSpec::fixtures(NOW)).unwrap();
    dir
}

pub(super) fn open(dir: &tempfile::TempDir, width: u16, height: u16) -> Headless {
    let source = Store::loki(dir.path(), "ann")
        .unwrap()
        .with_agents(&AgentHomes::under(&dir.path().join("home")))
        .with_cache_dir(&dir.path().join("cache"))
        .with_trash_dir(&dir.path().join("trash"))
        .with_days_in_utc();
    let settings = default_settings(StoreKind::Loki);
    Headless::open(source, settings, width, height, NOW, fixed_clock)
}

pub(super) fn check(name: &str, ui: &Headless, dir: &tempfile::TempDir) {
    let mut settings = insta::Settings::clone_current();
    let tmp: String = dir
        .path()
        .display()
        .to_string()
        .chars()
        .flat_map(|c| {
            let special = "\\.+*?()|[]{}^$".contains(c);
            special
                .then_some('\\')
                .into_iter()
                .chain(std::iter::once(c))
        })
        .collect();
    settings.add_filter(&tmp, "[TMP]");
    settings.add_filter(
        r"\b\d{8}-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
        "[ID]",
    );
    settings.add_filter(r"\b\d+(\.\d)? (KiB|MiB|GiB|B)", "[SIZE]");
    settings.bind(|| insta::assert_snapshot!(name, ui.screen()));
}

#[test]
fn a_mixed_list_shows_whose_each_session_is_and_its_project() {
    let dir = store();
    for (w, h) in [(80, 24), (160, 40), (160, 45)] {
        let ui = open(&dir, w, h);
        check(&format!("mixed_list_{w}x{h}"), &ui, &dir);
    }
    // At 160 columns the list keeps its project column beside the preview.
    let mut ui = open(&dir, 160, 45);
    let screen = ui.screen();
    assert!(
        screen.contains("PROJECT") && screen.contains("COST"),
        "{screen}"
    );
    // A project term keeps the sessions worked on there; the preview names
    // the folder.
    ui.type_text("in:infra");
    ui.settle();
    let screen = ui.screen();
    assert!(screen.contains("folder  /home/dev/src/infra"), "{screen}");
    let rows: Vec<&str> = screen
        .lines()
        .filter(|l| {
            ["claude ", "codex ", "gemini ", "copilot ", "qwen ", "loki "]
                .iter()
                .any(|a| l.starts_with(a))
        })
        .collect();
    assert!(
        !rows.is_empty() && rows.iter().all(|l| l.contains(" infra ")),
        "{screen}"
    );
}

#[test]
fn f4_shows_one_agents_sessions_then_the_next_then_all() {
    let dir = store();
    let mut ui = open(&dir, 120, 30);
    ui.press(KeyCode::F(4), KeyModifiers::NONE);
    let screen = ui.screen();
    assert!(screen.contains("@loki"), "{screen}");
    ui.press(KeyCode::F(4), KeyModifiers::NONE);
    let screen = ui.screen();
    assert!(screen.contains("@claude"), "{screen}");
    let agent_of = |l: &str| l.split_whitespace().next().unwrap_or("").to_string();
    let rows: Vec<String> = screen
        .lines()
        .map(agent_of)
        .filter(|a| ["loki", "claude", "codex", "gemini", "copilot", "qwen"].contains(&a.as_str()))
        .collect();
    assert!(
        !rows.is_empty() && rows.iter().all(|a| a == "claude"),
        "{screen}"
    );
    check("only_claude_120x30", &ui, &dir);
    // Each other agent's after Claude Code's, then every agent's again.
    for _ in 0..loki_sessions::store::Agent::EXTERNAL.len() {
        ui.press(KeyCode::F(4), KeyModifiers::NONE);
    }
    let screen = ui.screen();
    assert!(!screen.contains("› @"), "back to every agent: {screen}");
}

#[test]
fn a_claude_code_session_opens_with_what_it_spent() {
    let dir = store();
    for (w, h) in [(80, 24), (160, 40)] {
        let mut ui = open(&dir, w, h);
        ui.type_text("@claude login fix");
        ui.press(KeyCode::Tab, KeyModifiers::NONE);
        let screen = ui.screen();
        assert!(screen.contains("Claude Code · Login fix"), "{screen}");
        // The cost and every figure fit, shortened at 80 columns.
        let spent = if w == 80 {
            "Claude Code · Login fix  ≈$0.28 · in 91 · out 2.4k · cache 64k read  13 messages"
        } else {
            "≈$0.28 · spent: in 91 · out 2,380 · cache 64,166 read, 0 written   13 messages   cl100k_base"
        };
        assert!(screen.contains(spent), "{screen}");
        check(&format!("claude_viewer_{w}x{h}"), &ui, &dir);
    }
}

/// Every `*.jsonl` under `dir` with its bytes.
fn session_files(dir: &std::path::Path) -> std::collections::BTreeMap<std::path::PathBuf, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                todo.push(e.path());
            } else {
                out.insert(e.path(), std::fs::read(e.path()).unwrap());
            }
        }
    }
    out
}

#[test]
fn a_trim_of_a_claude_code_session_in_the_viewer_writes_a_new_session_beside_it() {
    let dir = store();
    let projects = dir.path().join("home/.claude/projects");
    let before = session_files(&projects);
    let mut ui = open(&dir, 120, 30);
    ui.type_text("@claude login fix");
    ui.press(KeyCode::Tab, KeyModifiers::NONE);
    ui.press(KeyCode::Char('t'), KeyModifiers::NONE);
    for _ in 0..5 {
        ui.press(KeyCode::Down, KeyModifiers::NONE);
    }
    let screen = ui.screen();
    assert!(screen.contains("keep the last 8 messages"), "{screen}");
    assert!(screen.contains("a new session beside it"), "{screen}");
    ui.press(KeyCode::Enter, KeyModifiers::NONE);
    let screen = ui.screen();
    assert!(screen.contains("beside the original"), "{screen}");
    let mut after = session_files(&projects);
    let new: Vec<std::path::PathBuf> = after
        .keys()
        .filter(|p| !before.contains_key(*p))
        .cloned()
        .collect();
    assert_eq!(new.len(), 1, "one fork: {new:?}");
    after.remove(&new[0]);
    assert_eq!(after, before, "the original is byte-identical");
    // The new session is in the list beside its original.
    ui.press(KeyCode::Esc, KeyModifiers::NONE);
    let screen = ui.screen();
    assert_eq!(screen.matches("Login fix").count(), 2, "{screen}");
}

#[test]
fn a_claude_code_session_deleted_in_the_list_goes_to_the_trash_after_the_question() {
    let dir = store();
    let projects = dir.path().join("home/.claude/projects");
    // Written a day before the UI's clock: not one the agent may be writing.
    let day_before = std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(NOW - 86_400.0);
    for path in session_files(&projects).keys() {
        let f = std::fs::File::options().append(true).open(path).unwrap();
        f.set_modified(day_before).unwrap();
    }
    let before = session_files(&projects);
    let mut ui = open(&dir, 120, 30);
    ui.type_text("@claude login fix");
    ui.press(KeyCode::F(8), KeyModifiers::NONE);
    let screen = ui.screen();
    assert!(
        screen.contains("It moves to the trash with the files its agent keeps beside it;"),
        "{screen}"
    );
    assert!(screen.contains("trash (F3) puts it back."), "{screen}");
    // The box is as tall as its wrapped lines: the answering keys show.
    assert!(
        screen.contains("│y yes    n / Enter / Esc no (default)"),
        "{screen}"
    );
    assert_eq!(
        session_files(&projects),
        before,
        "nothing moves before the answer"
    );
    ui.press(KeyCode::Char('y'), KeyModifiers::NONE);
    let after = session_files(&projects);
    assert_eq!(after.len(), before.len() - 1, "one session left its folder");
    let trashed = session_files(&dir.path().join("trash"));
    let moved: Vec<&Vec<u8>> = trashed.values().collect();
    let gone: Vec<&std::path::PathBuf> =
        before.keys().filter(|p| !after.contains_key(*p)).collect();
    assert!(
        moved.contains(&&before[gone[0]]),
        "its bytes are in the trash"
    );
}

#[test]
fn the_purge_preview_turns_to_claude_code_and_moves_its_old_sessions_to_the_trash() {
    let dir = store();
    let home = dir.path().join("home");
    let projects = home.join(".claude/projects");
    // Written a day before the UI's clock, but for one the agent is writing.
    let day_before = std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(NOW - 86_400.0);
    let files = session_files(&projects);
    for path in files.keys() {
        let f = std::fs::File::options().append(true).open(path).unwrap();
        f.set_modified(day_before).unwrap();
    }
    let source = || {
        sandbox::store(
            Store::loki(dir.path(), "ann")
                .unwrap()
                .with_agents(&AgentHomes::under(&home)),
        )
        .with_trash_dir(&dir.path().join("trash"))
    };
    let oldest = source()
        .only_agents(&[Agent::Claude])
        .list()
        .unwrap()
        .into_iter()
        .rfind(|r| r.error.is_none())
        .unwrap();
    let busy = std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(NOW - 30.0);
    let f = std::fs::File::options()
        .append(true)
        .open(&oldest.path)
        .unwrap();
    f.set_modified(busy).unwrap();
    let before = session_files(&projects);
    let mut ui = open(&dir, 120, 30);
    ui.press(KeyCode::Char('g'), KeyModifiers::CONTROL);
    let screen = ui.screen();
    assert!(
        screen.contains("a  purge of:   Loki   Claude Code   Codex   Gemini CLI "),
        "every agent listed is offered: {screen}"
    );
    ui.press(KeyCode::Char('a'), KeyModifiers::NONE);
    assert!(ui.wait_until(
        crate::common::patience(std::time::Duration::from_secs(20)),
        |m| { m.purge().is_some_and(|p| p.plan.is_some()) }
    ));
    // Its own defaults keep these 60 days; 20 days lets the older go.
    for _ in 0..10 {
        ui.press(KeyCode::Char('['), KeyModifiers::NONE);
    }
    let screen = ui.screen();
    assert!(screen.contains("more than 20d"), "{screen}");
    assert!(screen.contains("to move to the trash"), "{screen}");
    // Spared by the purge; Claude Code counts its 30 days from the file's
    // change 30 seconds ago: said first.
    assert!(
        screen.contains("⚑ Claude Code deletes it in 29 days; busy: it"),
        "{screen}"
    );
    check("purge_claude_120x30", &ui, &dir);
    ui.resize(80, 24);
    check("purge_claude_80x24", &ui, &dir);
    ui.resize(120, 30);
    let plan = ui.model.purge().unwrap().plan.clone().unwrap();
    let going: Vec<String> = plan
        .removals()
        .map(|e| e.candidate.record.id.to_string())
        .collect();
    assert!(!going.is_empty() && !going.contains(&oldest.id.to_string()));
    let spared = plan
        .kept()
        .find(|e| e.candidate.record.id == oldest.id)
        .unwrap();
    assert!(
        spared
            .decision
            .to_string()
            .starts_with("busy: it changed 30 seconds ago"),
        "{}",
        spared.decision
    );
    ui.press(KeyCode::Char('y'), KeyModifiers::NONE);
    check("purge_claude_confirm_120x30", &ui, &dir);
    assert_eq!(session_files(&projects), before, "nothing moves before yes");
    ui.press(KeyCode::Char('y'), KeyModifiers::NONE);
    assert!(ui.wait_until(
        crate::common::patience(std::time::Duration::from_secs(20)),
        |m| {
            m.purge()
                .is_some_and(|p| p.applying.is_none() && p.report.is_some())
        }
    ));
    let status = ui.model.app.status.clone().unwrap();
    assert!(
        !status.is_error && status.text.contains("to the trash; `loki-sessions restore"),
        "{status:?}"
    );
    assert_eq!(
        ui.model.purge().unwrap().report.as_ref().unwrap().removed,
        going
    );
    let trashed: Vec<String> = source()
        .trash_list()
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(trashed.len(), going.len());
    assert!(oldest.path.exists(), "the busy one stayed");
    // The trash, from the preview: the first row goes back with a key.
    ui.press(KeyCode::Char('t'), KeyModifiers::NONE);
    assert!(ui.wait_until(
        crate::common::patience(std::time::Duration::from_secs(20)),
        |m| { m.trash().is_some_and(|t| t.entries.is_some()) }
    ));
    check("trash_120x30", &ui, &dir);
    ui.resize(80, 24);
    check("trash_80x24", &ui, &dir);
    ui.resize(120, 30);
    let first = ui.model.trash().unwrap().selected_entry().unwrap().clone();
    assert!(!first.moves[0].from.exists());
    ui.press(KeyCode::Char('r'), KeyModifiers::NONE);
    assert!(ui.wait_until(
        crate::common::patience(std::time::Duration::from_secs(20)),
        |m| {
            m.trash().is_some_and(|t| {
                t.restoring.is_none()
                    && t.entries
                        .as_ref()
                        .is_some_and(|e| e.len() + 1 == going.len())
            })
        }
    ));
    let status = ui.model.app.status.clone().unwrap();
    assert!(
        !status.is_error && status.text.starts_with("restored Claude Code session"),
        "{status:?}"
    );
    assert!(first.moves[0].from.exists(), "its file is back");
    // Emptying: nothing was trashed a day ago, so `]` (over a day) asks
    // nothing; without an age, the question names what goes for good.
    let left = ui.model.trash().unwrap().entries.clone().unwrap();
    ui.press(KeyCode::Char(']'), KeyModifiers::NONE);
    ui.resize(80, 24);
    check("trash_by_age_80x24", &ui, &dir);
    ui.resize(120, 30);
    ui.press(KeyCode::Char('E'), KeyModifiers::NONE);
    assert!(ui.model.app.overlay.is_none());
    let status = ui.model.app.status.clone().unwrap();
    assert_eq!(
        status.text,
        "nothing in the trash was trashed over 1 day ago"
    );
    ui.press(KeyCode::Char('['), KeyModifiers::NONE);
    ui.press(KeyCode::Char('E'), KeyModifiers::NONE);
    check("trash_empty_confirm_120x30", &ui, &dir);
    assert_eq!(
        source().trash_list().unwrap().len(),
        left.len(),
        "not before yes"
    );
    ui.press(KeyCode::Char('y'), KeyModifiers::NONE);
    assert!(ui.wait_until(
        crate::common::patience(std::time::Duration::from_secs(20)),
        |m| {
            m.trash().is_some_and(|t| {
                t.deleting.is_none() && t.entries.as_ref().is_some_and(Vec::is_empty)
            })
        }
    ));
    let status = ui.model.app.status.clone().unwrap();
    assert!(
        !status.is_error
            && status.text.starts_with(&format!(
                "deleted {} for good, freed ",
                if left.len() == 1 {
                    "1 session".to_string()
                } else {
                    format!("{} sessions", left.len())
                }
            )),
        "{status:?}"
    );
    assert!(source().trash_list().unwrap().is_empty());
    // Esc goes back to the preview, which reads the sessions again.
    ui.press(KeyCode::Esc, KeyModifiers::NONE);
    assert!(ui.model.purge().is_some());
    // The restored session is back byte for byte; the deleted ones' files
    // are gone, and nothing else changed.
    let gone: Vec<&std::path::Path> = left
        .iter()
        .flat_map(|e| e.moves.iter().map(|m| m.from.as_path()))
        .collect();
    let mut expected = before.clone();
    expected.retain(|path, _| !gone.iter().any(|g| path.starts_with(g)));
    assert!(expected.len() < before.len());
    assert_eq!(
        session_files(&projects),
        expected,
        "only what was deleted is gone"
    );
}

#[test]
fn enter_on_a_session_its_agent_deleted_asks_then_restores_it_from_the_archive() {
    let dir = store();
    let projects = dir.path().join("home/.claude/projects");
    let archive = dir.path().join("archive");
    let source = || {
        Store::loki(dir.path(), "ann")
            .unwrap()
            .with_agents(&AgentHomes::under(&dir.path().join("home")))
            .with_cache_dir(&dir.path().join("cache"))
            .with_trash_dir(&dir.path().join("trash"))
            .with_archive_dir(&archive)
            .with_days_in_utc()
    };
    // Kept in the archive, then swept by Claude Code as it sweeps.
    let store = source().only_agents(&[Agent::Claude]);
    let record = store
        .list()
        .unwrap()
        .into_iter()
        .find(|r| r.error.is_none() && r.shown_name() == "Login fix")
        .unwrap();
    store.archive(&store.target(&record), NOW).unwrap();
    let original = std::fs::read(&record.path).unwrap();
    std::fs::remove_file(&record.path).unwrap();
    let side = record.path.with_extension("");
    if side.is_dir() {
        std::fs::remove_dir_all(&side).unwrap();
    }
    let mut ui = Headless::open(
        source(),
        default_settings(StoreKind::Loki),
        120,
        30,
        NOW,
        fixed_clock,
    );
    ui.type_text("@archived");
    let screen = ui.screen();
    assert!(screen.contains("archived · "), "{screen}");
    assert!(screen.contains("Enter asks to put it back"), "{screen}");
    // Read from the archive, said in the viewer's heading.
    ui.press(KeyCode::Tab, KeyModifiers::NONE);
    let screen = ui.screen();
    assert!(
        screen.contains("Claude Code (archived) · Login fix"),
        "{screen}"
    );
    ui.press(KeyCode::Esc, KeyModifiers::NONE);
    ui.press(KeyCode::Enter, KeyModifiers::NONE);
    let screen = ui.screen();
    assert!(
        screen.contains("Restore Claude Code session Login fix?"),
        "{screen}"
    );
    assert!(!record.path.exists(), "nothing written before the answer");
    ui.press(KeyCode::Char('y'), KeyModifiers::NONE);
    assert!(ui.wait_until(
        crate::common::patience(std::time::Duration::from_secs(20)),
        |m| {
            m.app
                .status
                .as_ref()
                .is_some_and(|s| s.text.starts_with("restored session"))
        }
    ));
    assert_eq!(
        std::fs::read(&record.path).unwrap(),
        original,
        "byte for byte"
    );
    assert!(record.path.starts_with(&projects));
    // Listed again as the live session: no longer among the archived.
    ui.settle();
    assert!(!ui.screen().contains("archived · "), "{}", ui.screen());
}

#[test]
fn alt_m_moves_a_claude_code_session_to_its_projects_new_folder_after_showing_what_changes() {
    let dir = store();
    let projects = dir.path().join("home/.claude/projects");
    // Written a day before the UI's clock: not one the agent may be writing.
    let day_before = std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(NOW - 86_400.0);
    for path in session_files(&projects).keys() {
        let f = std::fs::File::options().append(true).open(path).unwrap();
        f.set_modified(day_before).unwrap();
    }
    let new_home = dir.path().join("home/src/moved-app");
    std::fs::create_dir_all(&new_home).unwrap();
    let before = session_files(&projects);
    let mut ui = open(&dir, 120, 30);
    ui.type_text("@claude login fix");
    let record = ui.model.list.selected_row().unwrap().record.clone();
    let cwd = record.cwd.clone().unwrap();
    ui.press(KeyCode::Char('m'), KeyModifiers::ALT);
    let screen = ui.screen();
    assert!(
        screen.contains("Move the session: the folder its project is in now"),
        "{screen}"
    );
    assert!(screen.contains(&cwd), "starts from its folder: {screen}");
    for _ in cwd.chars() {
        ui.press(KeyCode::Backspace, KeyModifiers::NONE);
    }
    ui.type_text(new_home.to_str().unwrap());
    ui.press(KeyCode::Enter, KeyModifiers::NONE);
    assert!(ui.wait_until(
        crate::common::patience(std::time::Duration::from_secs(20)),
        |m| matches!(
            m.app.overlay,
            Some(loki_sessions::tui::model::Overlay::Confirm(_))
        )
    ));
    let screen = ui.screen();
    assert!(screen.contains("Move Claude Code session"), "{screen}");
    assert!(
        screen.contains("with the new folder, every other byte kept"),
        "{screen}"
    );
    assert_eq!(
        session_files(&projects),
        before,
        "nothing written before yes"
    );
    ui.press(KeyCode::Char('y'), KeyModifiers::NONE);
    assert!(ui.wait_until(
        crate::common::patience(std::time::Duration::from_secs(20)),
        |m| {
            m.app
                .status
                .as_ref()
                .is_some_and(|s| s.text.starts_with("moved "))
        }
    ));
    let after = session_files(&projects);
    assert!(
        !after.contains_key(&record.path),
        "the old one left its folder"
    );
    let moved_to = projects.join(new_home.to_str().unwrap().replace(['/', '.', '_'], "-"));
    let new_file = moved_to.join(record.path.file_name().unwrap());
    let text = String::from_utf8(after[&new_file].clone()).unwrap();
    assert!(text.contains(&format!("\"cwd\":\"{}\"", new_home.display())));
    assert!(!text.contains(&format!("\"cwd\":\"{cwd}\"")));
    // A Loki session has no folder to move: said, nothing asked.
    ui.press(KeyCode::Esc, KeyModifiers::NONE);
    ui.press(KeyCode::Esc, KeyModifiers::NONE);
    ui.type_text("@loki");
    ui.press(KeyCode::Char('m'), KeyModifiers::ALT);
    assert!(ui.model.app.overlay.is_none());
    let said = ui.model.app.status.clone().unwrap();
    assert!(
        said.is_error && said.text.contains("nothing to move"),
        "{said:?}"
    );
}
