//! Snapshots of the list and the viewer with other agents' sessions beside
//! Loki's: the agent and project columns, F4's `@agent` filter, and a
//! Claude Code session's header with what it spent. The same fixed clock
//! and masks as the other panes.

use crossterm::event::{KeyCode, KeyModifiers};
use loki_sessions::demo::agents::{self, AgentsSpec};
use loki_sessions::demo::{self, DemoSpec};
use loki_sessions::store::{AgentHomes, Encoding, PurgePolicy, Store, StoreKind};
use loki_sessions::tui::headless::Headless;
use loki_sessions::tui::model::Settings;

const NOW: f64 = 1_795_910_400.0 + 12.0 * 3600.0;

fn fixed_clock() -> f64 {
    NOW
}

/// A small Loki tree and every agent's fixtures in a home beside it.
fn store() -> tempfile::TempDir {
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

fn open(dir: &tempfile::TempDir, width: u16, height: u16) -> Headless {
    let source = Store::loki(dir.path(), "ann")
        .unwrap()
        .with_agents(&AgentHomes::under(&dir.path().join("home")))
        .with_cache_dir(&dir.path().join("cache"));
    let settings = Settings {
        encoding: Encoding::Cl100kBase,
        window_tokens: 128_000,
        policy: PurgePolicy::default(),
        store_kind: StoreKind::Loki,
        display: Default::default(),
        watch: None,
        windows: Vec::new(),
    };
    Headless::open(source, settings, width, height, NOW, fixed_clock)
}

fn check(name: &str, ui: &Headless, dir: &tempfile::TempDir) {
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
    for (w, h) in [(80, 24), (160, 40)] {
        let ui = open(&dir, w, h);
        check(&format!("mixed_list_{w}x{h}"), &ui, &dir);
    }
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
        .filter(|a| ["loki", "claude", "codex", "gemini"].contains(&a.as_str()))
        .collect();
    assert!(
        !rows.is_empty() && rows.iter().all(|a| a == "claude"),
        "{screen}"
    );
    check("only_claude_120x30", &ui, &dir);
    for _ in 0..3 {
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
        assert!(screen.contains("spent: in"), "{screen}");
        check(&format!("claude_viewer_{w}x{h}"), &ui, &dir);
    }
}
