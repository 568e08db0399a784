//! Drawing checks that need a model no real run reaches in a snapshot
//! (counts still coming in) or a width the snapshots do not use.

use super::*;
use crate::render::theme::Theme;
use crate::store::{Context, EditFacts, Encoding, PurgePolicy, SessionRecord, StoreKind};
use crate::tui::model::{Loaded, Settings, Viewer};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The viewer of a session named `name` with `n` messages, `counted` of
/// them counted (10 tokens each).
fn viewer_model(name: &str, n: usize, counted: usize) -> Model {
    let settings = Settings {
        encoding: Encoding::Cl100kBase,
        window_tokens: 128_000,
        policy: PurgePolicy::default(),
        store_kind: StoreKind::Loki,
        display: Default::default(),
        watch: None,
        windows: Vec::new(),
        resume_check: Default::default(),
        looked_in: None,
        archive_due: None,
        hosts: Vec::new(),
        host_timeout: std::time::Duration::from_secs(20),
        open_hosts: Vec::new(),
    };
    let mut model = Model::new(settings, 0.0);
    let messages: Vec<_> = (0..n)
        .map(|i| {
            json!({"id": format!("m{i}"), "role": "user", "_sequence_number": i,
                        "content": [{"type": "text", "text": format!("message {i}")}]})
        })
        .collect();
    let raw = json!({"id": "20261129-3f0c2a9e-8d1b-4c55-9e7a-2b6f0d4c1a7e", "messages": messages});
    let context =
        Context::from_raw(raw.as_object().unwrap().clone(), Path::new("/s/c.json")).unwrap();
    let record = SessionRecord {
        id: "s".into(),
        name: name.into(),
        user: "u".into(),
        first_prompt: String::new(),
        created_at: 0.0,
        last_used_at: 0.0,
        path: PathBuf::from("/s"),
        conversation_dir: PathBuf::from("/s/memory"),
        error: None,
        ..SessionRecord::default()
    };
    let mut viewer = Viewer::new(record, 1);
    viewer.loaded = Some(Loaded {
        facts: Some(Arc::new(EditFacts::new(&context))),
        context: Arc::new(context),
        agent_owned: false,
        usage: None,
        notes: Vec::new(),
        recorded: None,
    });
    let counts = (0..n).map(|i| (i < counted).then_some(10)).collect();
    viewer.counts.insert(Encoding::Cl100kBase, counts);
    model.screen = Screen::Viewer(Box::new(viewer));
    model
}

fn screen(model: &Model, width: u16, height: u16) -> Vec<String> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    let mut state = ViewState::new(Theme::plain());
    terminal
        .draw(|frame| draw(frame, model, &mut state))
        .unwrap();
    let buffer = terminal.backend().buffer();
    buffer
        .content
        .chunks(usize::from(width))
        .map(|row| row.iter().map(|c| c.symbol()).collect::<String>())
        .collect()
}

#[test]
fn the_gauge_says_counting_until_every_message_is_counted() {
    let lines = screen(&viewer_model("fix-the-login-bug", 40, 25), 80, 24);
    assert!(
        lines[1].starts_with("counting… 25 of 40 messages"),
        "{:?}",
        lines[1]
    );
    assert!(
        !lines[1].contains("tokens ("),
        "no partial total: {:?}",
        lines[1]
    );
    let lines = screen(&viewer_model("fix-the-login-bug", 40, 40), 80, 24);
    assert!(
        lines[1].starts_with("400 / 128,000 tokens (0% of the window)"),
        "{:?}",
        lines[1]
    );
}

#[test]
fn the_gauge_measures_against_the_window_of_the_sessions_agent_and_warns() {
    let claude = |m: &mut Model, windows: Vec<(String, u64)>| {
        m.app.settings.windows = windows;
        if let Screen::Viewer(v) = &mut m.screen {
            v.record.agent = crate::store::Agent::Claude;
        }
    };
    let mut m = viewer_model("fix-the-login-bug", 100, 100);
    claude(
        &mut m,
        vec![("loki".into(), 900_000), ("claude".into(), 1_200)],
    );
    let lines = screen(&m, 80, 24);
    assert!(
        lines[1].starts_with("1,000 / 1,200 tokens (83% of the window) — filling up"),
        "{:?}",
        lines[1]
    );
    claude(&mut m, vec![("claude".into(), 1_040)]);
    let lines = screen(&m, 80, 24);
    assert!(
        lines[1].contains("(96% of the window) — nearly full"),
        "{:?}",
        lines[1]
    );
}

#[test]
fn the_header_keeps_the_count_and_the_encoding() {
    let name = "investigate-why-emails-land-in-spam-and-the-bounce-rate-doubled";
    let lines = screen(&viewer_model(name, 1, 1), 80, 24);
    let header = lines[0].trim_end();
    assert!(header.ends_with("   1 message   cl100k_base"), "{header:?}");
    assert!(
        header.starts_with("investigate-why-emails-la…   "),
        "{header:?}"
    );
    assert!(
        header.contains("   context 20261129-3f0c2a9e   "),
        "{header:?}"
    );
    assert_eq!(header.chars().count(), 80);
    // A name that leaves room keeps as much of the id as fits.
    let lines = screen(&viewer_model("fix-the-login-bug", 3, 3), 90, 24);
    assert_eq!(
        lines[0].trim_end(),
        "fix-the-login-bug   context 20261129-3f0c2a9e-8d1b-4c55-9e7a-2…   3 messages   cl100k_base"
    );
    let lines = screen(&viewer_model("short", 3, 3), 100, 24);
    assert_eq!(
        lines[0].trim_end(),
        "short   context 20261129-3f0c2a9e-8d1b-4c55-9e7a-2b6f0d4c1a7e   3 messages   cl100k_base"
    );
}

#[test]
fn a_long_status_message_wraps_instead_of_being_cut() {
    let mut model = viewer_model("s", 3, 3);
    let end = "claude --resume=0f6c1e2a-4b7d-4c1a-9e3f-5d2b8a7c6e10";
    model.app.complain(format!(
        "Claude Code is not installed here (no claude on PATH); copied the command: cd /home/dev/src/web-app && {end}"
    ));
    let rows = screen(&model, 80, 24);
    let text = rows.join("\n");
    assert!(
        text.contains("0f6c1e2a-4b7d-4c1a-9e3f-5d2b8a7c6e10"),
        "the end of the message is shown:\n{text}"
    );
    // The keys' footer stays on the last row.
    assert!(!rows[23].contains("resume="), "{}", rows[23]);
    model.app.status = None;
    assert_eq!(footer::status_height(&model, 80), 1);
}

/// Every cell drawn on the selection's background, with its contrast and
/// whether it is dim, at 100x30 in `theme`.
fn selected_cells(model: &Model, theme: Theme) -> Vec<(String, f64, bool)> {
    use crate::render::theme::contrast::ratio;
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    let mut state = ViewState::new(theme);
    terminal
        .draw(|frame| draw(frame, model, &mut state))
        .unwrap();
    let bg = theme.selected().bg.unwrap();
    terminal
        .backend()
        .buffer()
        .content
        .iter()
        .filter(|c| c.bg == bg)
        .map(|c| {
            (
                c.symbol().to_string(),
                ratio(c.fg, bg, theme.background),
                c.modifier.contains(ratatui::style::Modifier::DIM),
            )
        })
        .collect()
}

#[test]
fn text_on_the_selection_reaches_four_and_a_half_to_one_in_both_themes() {
    use crate::render::theme::contrast::MIN_CONTRAST;
    let table = viewer_model("s", 12, 12);
    let mut transcript = viewer_model("s", 12, 12);
    crate::tui::update::update(
        &mut transcript,
        crate::tui::msg::Msg::Action(crate::tui::msg::Action::ToggleTranscript),
    );
    for theme in [Theme::dark(), Theme::light()] {
        for (pane, model) in [("messages", &table), ("transcript", &transcript)] {
            let cells = selected_cells(model, theme);
            assert!(!cells.is_empty(), "{pane}: something is selected");
            for (symbol, ratio, dim) in cells {
                assert!(
                    ratio >= MIN_CONTRAST && !dim,
                    "{theme:?} {pane}: {symbol:?} at {ratio:.2}:1, dim {dim}"
                );
            }
        }
    }
}

#[test]
fn faint_and_red_text_on_the_selection_get_its_own_colour() {
    use crate::render::theme::contrast::{MIN_CONTRAST, keep_selection_readable, ratio};
    use ratatui::style::{Color, Modifier, Style};
    for theme in [Theme::dark(), Theme::light()] {
        let selection = theme.selected();
        let area = ratatui::layout::Rect::new(0, 0, 3, 1);
        let mut buffer = ratatui::buffer::Buffer::empty(area);
        buffer.set_style(area, selection);
        buffer[(0, 0)].set_fg(Color::Red);
        buffer[(1, 0)].set_style(Style::new().fg(Color::DarkGray).add_modifier(Modifier::DIM));
        buffer[(2, 0)].set_fg(selection.fg.unwrap());
        keep_selection_readable(&mut buffer, theme);
        for x in 0..3 {
            let cell = &buffer[(x, 0)];
            let r = ratio(cell.fg, selection.bg.unwrap(), theme.background);
            assert!(r >= MIN_CONTRAST, "{theme:?} cell {x}: {r}");
            assert!(!cell.modifier.contains(Modifier::DIM));
        }
    }
}

#[test]
fn a_session_its_agent_deletes_soon_is_marked_and_the_preview_says_when() {
    let settings = Settings {
        encoding: Encoding::Cl100kBase,
        window_tokens: 128_000,
        policy: PurgePolicy::default(),
        store_kind: StoreKind::Loki,
        display: Default::default(),
        watch: None,
        windows: Vec::new(),
        resume_check: Default::default(),
        looked_in: None,
        archive_due: None,
        hosts: Vec::new(),
        host_timeout: std::time::Duration::from_secs(20),
        open_hosts: Vec::new(),
    };
    let now = 1_800_000_000.0;
    let mut model = Model::new(settings, now);
    let day = 86_400.0;
    for (id, title) in [("soon", "Login fix"), ("later", "Billing cron")] {
        let record = SessionRecord {
            agent: crate::store::Agent::Claude,
            id: id.into(),
            name: title.to_lowercase().replace(' ', "-"),
            title: title.into(),
            last_used_at: now - 27.0 * day,
            path: PathBuf::from(format!("/p/{id}.jsonl")),
            ..SessionRecord::default()
        };
        model.list.by_id.insert(id.into(), model.list.rows.len());
        model
            .list
            .rows
            .push(crate::tui::model::SessionRow::new(record));
    }
    model.list.visible = vec![0, 1];
    model
        .list
        .agent_deletes_at
        .insert("soon".into(), now + 3.0 * day);
    model
        .list
        .agent_deletes_at
        .insert("later".into(), now + 40.0 * day);
    model.list.retention_rules = vec![crate::store::RetentionRule {
        agent: crate::store::Agent::Claude,
        max_age: Some(30.0 * day),
        max_count: None,
        min_age: 0.0,
        from: "its default, 30 days".into(),
        note: None,
    }];
    let lines = screen(&model, 120, 30);
    let row = |name: &str| lines.iter().find(|l| l.contains(name)).unwrap().clone();
    assert!(row("Login fix").contains("⚑ Login fix"), "{lines:#?}");
    assert!(!row("Billing cron").contains('⚑'), "{lines:#?}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("Claude Code deletes it in 3 days (its default, 30 days)")),
        "{lines:#?}"
    );
}

#[test]
fn an_archived_session_says_so_on_its_row_and_in_the_preview() {
    let settings = Settings {
        encoding: Encoding::Cl100kBase,
        window_tokens: 128_000,
        policy: PurgePolicy::default(),
        store_kind: StoreKind::Loki,
        display: Default::default(),
        watch: None,
        windows: Vec::new(),
        resume_check: Default::default(),
        looked_in: None,
        archive_due: None,
        hosts: Vec::new(),
        host_timeout: std::time::Duration::from_secs(20),
        open_hosts: Vec::new(),
    };
    let now = 1_800_000_000.0;
    let mut model = Model::new(settings, now);
    let record = SessionRecord {
        agent: crate::store::Agent::Claude,
        id: "kept".into(),
        name: "login-fix".into(),
        title: "Login fix".into(),
        last_used_at: now - 40.0 * 86_400.0,
        path: PathBuf::from("/a/claude/kept/manifest.json"),
        archived: true,
        ..SessionRecord::default()
    };
    model.list.by_id.insert("kept".into(), 0);
    model
        .list
        .rows
        .push(crate::tui::model::SessionRow::new(record));
    model.list.visible = vec![0];
    let lines = screen(&model, 140, 30);
    assert!(
        lines.iter().any(|l| l.contains("archived · Login fix")),
        "{lines:#?}"
    );
    // Wrapped in the preview (right of the list): read as one text.
    let text = lines
        .iter()
        .filter_map(|l| l.rsplit_once('│'))
        .map(|(_, preview)| preview.trim())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(text.contains("Enter asks to put it back"), "{lines:#?}");
    assert!(text.contains("restore kept --from-archive"), "{lines:#?}");
}
