//! Snapshots of every pane at 80x24 and at a wide size, drawn by the real
//! loop (keymap, update, worker) on a demo store with a fixed clock. Random
//! ids (of forks) and temp paths are masked; sizes depend on the filesystem's
//! block size, so they are masked too.

use crate::common::sandbox;
use crossterm::event::{KeyCode, KeyModifiers};
use loki_sessions::cli::default_settings;
use loki_sessions::demo::{self, DemoSpec};
use loki_sessions::store::{Store, StoreKind};
use loki_sessions::tui::headless::Headless;

const NOW: f64 = 1_795_910_400.0 + 12.0 * 3600.0;

fn fixed_clock() -> f64 {
    NOW
}

fn store() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let spec = DemoSpec {
        sessions: 40,
        messages: 12,
        big_context: 300,
        seed: 7,
        user: "ann".into(),
        now: NOW,
        extras: true,
    };
    demo::generate(dir.path(), &spec, &|_| {}).unwrap();
    dir
}

fn open(dir: &tempfile::TempDir, width: u16, height: u16) -> Headless {
    let source = Store::loki(dir.path(), "ann")
        .unwrap()
        .with_cache_dir(&dir.path().join("cache"));
    let settings = default_settings(StoreKind::Loki);
    Headless::open(source, settings, width, height, NOW, fixed_clock)
}

fn check(name: &str, ui: &Headless, dir: &tempfile::TempDir) {
    check_with(name, ui, dir, &[]);
}

/// `check`, with more filters (pattern, replacement) after the usual ones.
fn check_with(name: &str, ui: &Headless, dir: &tempfile::TempDir, more: &[(&str, &str)]) {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(&regex_escape(&dir.path().display().to_string()), "[TMP]");
    settings.add_filter(
        r"\b\d{8}-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
        "[ID]",
    );
    settings.add_filter(r"\b\d+(\.\d)? (KiB|MiB|GiB|B)", "[SIZE]");
    for (pattern, replacement) in more {
        settings.add_filter(pattern, *replacement);
    }
    settings.bind(|| insta::assert_snapshot!(name, ui.screen()));
}

fn regex_escape(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let special = "\\.+*?()|[]{}^$".contains(c);
            special
                .then_some('\\')
                .into_iter()
                .chain(std::iter::once(c))
        })
        .collect()
}

fn key(ui: &mut Headless, code: KeyCode) {
    ui.press(code, KeyModifiers::NONE);
}

fn ctrl(ui: &mut Headless, c: char) {
    ui.press(KeyCode::Char(c), KeyModifiers::CONTROL);
}

#[test]
fn list_and_preview() {
    let dir = store();
    for (w, h) in [(80, 24), (160, 40)] {
        let ui = open(&dir, w, h);
        check(&format!("list_{w}x{h}"), &ui, &dir);
    }
}

#[test]
fn list_filtered_by_typing() {
    let dir = store();
    for (w, h) in [(80, 24), (160, 40)] {
        let mut ui = open(&dir, w, h);
        ui.type_text("login");
        check(&format!("filtered_{w}x{h}"), &ui, &dir);
    }
}

#[test]
fn messages_found_by_their_text() {
    let dir = store();
    for (w, h) in [(80, 24), (160, 40)] {
        let mut ui = open(&dir, w, h);
        ctrl(&mut ui, 'f');
        ui.type_text("connection refused");
        check(&format!("messages_{w}x{h}"), &ui, &dir);
        // The second session's hits are grouped: Enter shows them all.
        key(&mut ui, KeyCode::Down);
        key(&mut ui, KeyCode::Enter);
        let screen = ui.screen();
        assert!(screen.contains(" ▾ 11"), "{screen}");
        let members = screen.matches("  └").count();
        assert!(members >= 3 && (w == 80 || members == 10), "{screen}");
        check(&format!("messages_group_open_{w}x{h}"), &ui, &dir);
        key(&mut ui, KeyCode::Enter);
        key(&mut ui, KeyCode::Up);
        key(&mut ui, KeyCode::Tab);
        check(&format!("viewer_at_hit_{w}x{h}"), &ui, &dir);
    }
}

#[test]
fn viewer_with_counts() {
    let dir = store();
    for (w, h) in [(80, 24), (160, 40)] {
        let mut ui = open(&dir, w, h);
        key(&mut ui, KeyCode::Down);
        key(&mut ui, KeyCode::Down);
        key(&mut ui, KeyCode::Down);
        key(&mut ui, KeyCode::Tab);
        check(&format!("viewer_{w}x{h}"), &ui, &dir);
    }
}

#[test]
fn trim_preview_and_contexts() {
    let dir = store();
    for (w, h) in [(80, 24), (160, 40)] {
        let mut ui = open(&dir, w, h);
        key(&mut ui, KeyCode::Down);
        key(&mut ui, KeyCode::Down);
        key(&mut ui, KeyCode::Down);
        key(&mut ui, KeyCode::Tab);
        key(&mut ui, KeyCode::Char('t'));
        ui.type_text("4");
        check(&format!("trim_{w}x{h}"), &ui, &dir);
        key(&mut ui, KeyCode::Char('b'));
        check(&format!("trim_budget_{w}x{h}"), &ui, &dir);
        key(&mut ui, KeyCode::Esc);
        key(&mut ui, KeyCode::Char('c'));
        check(&format!("contexts_{w}x{h}"), &ui, &dir);
    }
}

#[test]
fn purge_preview_and_confirm() {
    let dir = store();
    for (w, h) in [(80, 24), (160, 40)] {
        let mut ui = open(&dir, w, h);
        ctrl(&mut ui, 'g');
        check(&format!("purge_{w}x{h}"), &ui, &dir);
        key(&mut ui, KeyCode::Char('y'));
        check(&format!("purge_confirm_{w}x{h}"), &ui, &dir);
    }
}

#[test]
fn dialogs_and_help() {
    let dir = store();
    for (w, h) in [(80, 24), (160, 40)] {
        let mut ui = open(&dir, w, h);
        key(&mut ui, KeyCode::F(1));
        check(&format!("help_{w}x{h}"), &ui, &dir);
        key(&mut ui, KeyCode::Esc);
        key(&mut ui, KeyCode::F(8));
        check(&format!("delete_{w}x{h}"), &ui, &dir);
        key(&mut ui, KeyCode::Enter);
        key(&mut ui, KeyCode::F(7));
        ui.type_text("Write the release notes");
        check(&format!("new_session_{w}x{h}"), &ui, &dir);
    }
}

#[test]
fn damaged_session_and_small_terminal() {
    let dir = store();
    let mut ui = open(&dir, 80, 24);
    ui.type_text("damaged");
    key(&mut ui, KeyCode::Esc);
    ui.press(KeyCode::End, KeyModifiers::CONTROL);
    check("damaged_80x24", &ui, &dir);
    ui.resize(60, 20);
    check("too_small_60x20", &ui, &dir);
}

#[test]
fn an_empty_store_says_where_it_looked() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("users/ann/session")).unwrap();
    let ui = open(&dir, 80, 24);
    check("empty_80x24", &ui, &dir);
}

#[test]
fn an_empty_session_says_it_is_empty_not_counting() {
    let dir = tempfile::tempdir().unwrap();
    let store = sandbox::store(Store::loki(dir.path(), "ann").unwrap());
    store.start("an empty one", None, NOW).unwrap();
    let mut ui = open(&dir, 80, 24);
    key(&mut ui, KeyCode::Tab);
    let screen = ui.screen();
    assert!(screen.contains("0 messages"), "{screen}");
    assert!(
        screen.contains("no tokens yet, the context is empty"),
        "{screen}"
    );
    assert!(
        !screen.contains("once every message is counted"),
        "{screen}"
    );
}

/// The session of the demo store named `name`.
fn session_named(dir: &tempfile::TempDir, name: &str) -> loki_sessions::store::SessionRecord {
    let store = sandbox::store(Store::loki(dir.path(), "ann").unwrap());
    let records = store.list().unwrap();
    records.into_iter().find(|r| r.name == name).unwrap()
}

/// The file of the session's active context.
fn active_context_file(record: &loki_sessions::store::SessionRecord) -> std::path::PathBuf {
    let dir = &record.conversation_dir;
    let session: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("session.json")).unwrap()).unwrap();
    let id = session["active_context_id"].as_str().unwrap();
    dir.join(format!("{id}.json"))
}

const RELEASE_NOTES: &str = "\
Here are the release notes for 2.4, grouped by area. I merged the two entries about the session cookie, which described the same fix from both ends.

## Authentication

- The session cookie is now set with `SameSite=Lax`, so the browser keeps it on the redirect back from the identity provider and people are no longer logged out after signing in with SSO.
- Password reset links expire after 30 minutes instead of 24 hours.
- A failed login no longer says whether the email exists.

## Billing

- Invoices for the Tokyo office use the new template, with the tax number in the header.
- Refunds of a partial month are prorated to the day.

## API

- `GET /orders` is paginated with a keyset cursor on `(created_at, id)`; the old `page` parameter still works until 3.0 and answers with a `Deprecation` header.
- Rate limiting: a token bucket per API key, 100 requests per minute by default, configurable per key in the admin pages.
- Errors carry a `request_id` to quote to support.

## Admin pages

- Dark mode follows the system setting.
- The audit log lists who changed a key's rate limit and when.

## Fixed

- The last order of a page was repeated on the next page (the cursor compared with `>=` instead of `>`).
- Emails from the staging server no longer land in spam: they are signed with DKIM like production's.
- The health check endpoint answers within 50 ms even when the database is slow.

I will write these to CHANGELOG.md under a new 2.4.0 heading and leave the date for the release day.";

/// Makes message 13 of "investigate-why-emails-land-in-spam" (a tool call)
/// a long one: thinking, release notes that wrap, then the call.
fn with_long_message(dir: &tempfile::TempDir) {
    let record = session_named(dir, "investigate-why-emails-land-in-spam");
    let path = active_context_file(&record);
    let mut context: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let message = &mut context["messages"][13];
    assert_eq!(message["role"], "assistant");
    let call_id = message["content"][0]["call_id"].clone();
    let arguments =
        serde_json::json!({"path": "CHANGELOG.md", "content": RELEASE_NOTES}).to_string();
    message["content"] = serde_json::json!([
        {"type": "thinking", "text": "The user wants the release notes for 2.4. Read the changelog first, then group the entries by area.\nTwo entries describe the same cookie fix: merge them.\nKeep each line short enough to scan."},
        {"type": "text", "text": RELEASE_NOTES},
        {"type": "tool_use", "call_id": call_id, "name": "write_file", "arguments": arguments, "approval_status": "approved"},
    ]);
    message.as_object_mut().unwrap().remove("token_count");
    std::fs::write(&path, serde_json::to_vec_pretty(&context).unwrap()).unwrap();
}

#[test]
fn a_long_message_full_screen() {
    let dir = store();
    with_long_message(&dir);
    for (w, h) in [(80, 24), (160, 40)] {
        let mut ui = open(&dir, w, h);
        ui.type_text("investigate-why-emails");
        key(&mut ui, KeyCode::Tab);
        key(&mut ui, KeyCode::Up);
        key(&mut ui, KeyCode::Enter);
        check(&format!("message_{w}x{h}"), &ui, &dir);
        key(&mut ui, KeyCode::End);
        check(&format!("message_end_{w}x{h}"), &ui, &dir);
    }
    let mut ui = open(&dir, 80, 24);
    ui.type_text("investigate-why-emails");
    key(&mut ui, KeyCode::Tab);
    key(&mut ui, KeyCode::Up);
    key(&mut ui, KeyCode::Enter);
    key(&mut ui, KeyCode::Char('/'));
    ui.type_text("dkim");
    check("message_find_80x24", &ui, &dir);
    key(&mut ui, KeyCode::Enter);
    key(&mut ui, KeyCode::Char('n'));
    check("message_find_next_80x24", &ui, &dir);
}

#[test]
fn contexts_active_ancestor_and_other() {
    let ids = [(r"\b\d{8}-[0-9a-f]{8}[0-9a-f-]*…?", "[ID…]")];
    for (w, h) in [(80, 24), (160, 40)] {
        let dir = store();
        let record = session_named(&dir, "investigate-why-emails-land-in-spam");
        let mut ui = open(&dir, w, h);
        ui.type_text("investigate-why-emails");
        key(&mut ui, KeyCode::Tab);
        // Trim, make the root active again (the undo), trim anew: the root
        // is an ancestor, the first fork another branch, the second active.
        key(&mut ui, KeyCode::Char('t'));
        ui.type_text("4");
        key(&mut ui, KeyCode::Enter);
        let first = active_id(&ui);
        key(&mut ui, KeyCode::Char('c'));
        key(&mut ui, KeyCode::Home);
        key(&mut ui, KeyCode::Enter);
        key(&mut ui, KeyCode::Char('t'));
        ui.type_text("3");
        key(&mut ui, KeyCode::Enter);
        let second = active_id(&ui);
        // A fork's time is its file's: fixed here so the list is the same each run.
        for (id, hours) in [(&first, 3.0), (&second, 1.0)] {
            let file = std::fs::File::options()
                .write(true)
                .open(record.conversation_dir.join(format!("{id}.json")))
                .unwrap();
            let at =
                std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(NOW - hours * 3600.0);
            file.set_modified(at).unwrap();
        }
        key(&mut ui, KeyCode::Char('c'));
        key(&mut ui, KeyCode::Up);
        check_with(&format!("contexts_tree_{w}x{h}"), &ui, &dir, &ids);
        key(&mut ui, KeyCode::Char('d'));
        check_with(&format!("contexts_delete_{w}x{h}"), &ui, &dir, &ids);
        key(&mut ui, KeyCode::Char('y'));
        check_with(&format!("contexts_deleted_{w}x{h}"), &ui, &dir, &ids);
        assert!(
            !record
                .conversation_dir
                .join(format!("{first}.json"))
                .exists()
        );
    }
}

fn active_id(ui: &Headless) -> String {
    let loaded = ui.model.viewer().unwrap().loaded.as_ref().unwrap();
    loaded.context.id().to_string()
}

#[test]
fn a_dialog_over_a_wide_name() {
    // At the end of the list a name in Japanese sits under the left edge of
    // the dialogs: its wide characters must not push their borders aside.
    let dir = store();
    let mut ui = open(&dir, 80, 24);
    ui.press(KeyCode::End, KeyModifiers::CONTROL);
    key(&mut ui, KeyCode::Up);
    key(&mut ui, KeyCode::F(8));
    check("delete_wide_name_80x24", &ui, &dir);
    key(&mut ui, KeyCode::Esc);
    key(&mut ui, KeyCode::F(2));
    check("rename_wide_name_80x24", &ui, &dir);
}

const CODE_ANSWER: &str = "\
The bug is in `next_cursor`: it compares with `>=`, so the last order of a page comes back first on the next one.

```rust
fn next_cursor(orders: &[Order]) -> Option<Cursor> {
    // The cursor is the last order shown; the next page starts after it.
    let last = orders.last()?;
    Some(Cursor { created_at: last.created_at, id: last.id })
}
```

> A keyset cursor must be *strictly* after the last row.

1. Fix the comparison.
2. Add a test with **two orders** at the same time.";

/// Message 11 of "investigate-why-emails-land-in-spam" (an assistant's
/// answer) becomes markdown with a fenced code block, and message 12 (a
/// tool's result) a log of 20 lines.
fn with_code_answer(dir: &tempfile::TempDir) {
    let record = session_named(dir, "investigate-why-emails-land-in-spam");
    let path = active_context_file(&record);
    let mut context: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let message = &mut context["messages"][11];
    message["content"] = serde_json::json!([{"type": "text", "text": CODE_ANSWER}]);
    message.as_object_mut().unwrap().remove("token_count");
    let result = &mut context["messages"][12];
    assert_eq!(result["content"][0]["type"], "tool_result");
    let log: Vec<String> = (1..=20)
        .map(|i| format!("2026-11-20T09:14:{i:02}Z WARN dkim: signature missing for mail {i}"))
        .collect();
    result["content"][0]["content"] = serde_json::Value::String(log.join("\n"));
    result.as_object_mut().unwrap().remove("token_count");
    std::fs::write(&path, serde_json::to_vec_pretty(&context).unwrap()).unwrap();
}

/// The viewer on "investigate-why-emails-land-in-spam", message `up` rows
/// above the last selected, in transcript mode.
fn transcript_at(dir: &tempfile::TempDir, w: u16, h: u16, up: usize) -> Headless {
    let mut ui = open(dir, w, h);
    ui.type_text("investigate-why-emails");
    key(&mut ui, KeyCode::Tab);
    for _ in 0..up {
        key(&mut ui, KeyCode::Up);
    }
    key(&mut ui, KeyCode::Tab);
    ui
}

#[test]
fn transcript_folded_unfolded_and_markdown() {
    let dir = store();
    with_long_message(&dir);
    with_code_answer(&dir);
    for (w, h) in [(80, 24), (160, 40)] {
        let mut ui = transcript_at(&dir, w, h, 3);
        check(&format!("transcript_markdown_{w}x{h}"), &ui, &dir);
        // Message 12 is a tool's long output, 13 thinks before it answers.
        key(&mut ui, KeyCode::Char(']'));
        check(&format!("transcript_tools_truncated_{w}x{h}"), &ui, &dir);
        key(&mut ui, KeyCode::Char('t'));
        check(&format!("transcript_tools_full_{w}x{h}"), &ui, &dir);
        key(&mut ui, KeyCode::Char('t'));
        key(&mut ui, KeyCode::Char('T'));
        check(&format!("transcript_tools_off_thinking_{w}x{h}"), &ui, &dir);
    }
}

#[test]
fn transcript_in_light_and_dark_colours() {
    use loki_sessions::tui::theme::Theme;
    let dir = store();
    with_code_answer(&dir);
    for (w, h) in [(80, 24), (160, 40)] {
        let mut ui = transcript_at(&dir, w, h, 3);
        for (name, theme) in [("dark", Theme::dark()), ("light", Theme::light())] {
            ui.state.theme = Some(theme);
            let mut settings = insta::Settings::clone_current();
            settings.add_filter(&regex_escape(&dir.path().display().to_string()), "[TMP]");
            settings.bind(|| {
                insta::assert_snapshot!(format!("transcript_{name}_{w}x{h}"), ui.styled_screen());
            });
        }
    }
}

#[test]
fn transcript_search_unfolds_a_folded_tool_result() {
    let dir = store();
    with_code_answer(&dir);
    for (w, h) in [(80, 24), (160, 40)] {
        let mut ui = transcript_at(&dir, w, h, 3);
        // "mail 17" is on line 17 of message 12's log, past its first six lines.
        assert!(!ui.screen().contains("mail 17"));
        key(&mut ui, KeyCode::Char('/'));
        ui.type_text("mail 17");
        check(&format!("transcript_find_{w}x{h}"), &ui, &dir);
        key(&mut ui, KeyCode::Enter);
        key(&mut ui, KeyCode::Char('n'));
        check(&format!("transcript_find_next_{w}x{h}"), &ui, &dir);
    }
}

/// Standard base64, written here apart from the code under test.
fn base64(bytes: &[u8]) -> String {
    let digits = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = (chunk[0] as u32) << 16
            | (*chunk.get(1).unwrap_or(&0) as u32) << 8
            | *chunk.get(2).unwrap_or(&0) as u32;
        for i in 0..4 {
            out.push(if i <= chunk.len() {
                digits[(n >> (18 - 6 * i) & 63) as usize] as char
            } else {
                '='
            });
        }
    }
    out
}

#[test]
fn copies_reach_the_terminal_as_osc52() {
    let dir = store();
    with_code_answer(&dir);
    let record = session_named(&dir, "investigate-why-emails-land-in-spam");
    let mut ui = transcript_at(&dir, 80, 24, 3);
    key(&mut ui, KeyCode::Char('y'));
    assert!(
        ui.screen()
            .contains("sent message #12 (482 B) to the terminal's clipboard")
    );
    key(&mut ui, KeyCode::Char('Y'));
    key(&mut ui, KeyCode::Char('p'));
    assert_eq!(
        ui.written,
        [
            format!("\x1b]52;c;{}\x07", base64(CODE_ANSWER.as_bytes())),
            format!("\x1b]52;c;{}\x07", base64(record.id.as_bytes())),
            format!(
                "\x1b]52;c;{}\x07",
                base64(record.path.display().to_string().as_bytes())
            ),
        ]
    );
    // Nothing is written again on the next keys: each copy once.
    key(&mut ui, KeyCode::Down);
    assert_eq!(ui.written.len(), 3);
}

/// The viewer on "investigate-why-emails-land-in-spam", at its last message
/// (14, a tool result; 13 is its call, 12 another result, 11 thinks).
fn viewer_on_spam(dir: &tempfile::TempDir, w: u16, h: u16) -> Headless {
    let mut ui = open(dir, w, h);
    ui.type_text("investigate-why-emails");
    key(&mut ui, KeyCode::Tab);
    ui
}

#[test]
fn where_the_tokens_go_and_largest_first() {
    use loki_sessions::tui::theme::Theme;
    let dir = store();
    for (w, h) in [(80, 24), (160, 40)] {
        let mut ui = viewer_on_spam(&dir, w, h);
        key(&mut ui, KeyCode::Char('w'));
        check(&format!("breakdown_{w}x{h}"), &ui, &dir);
        key(&mut ui, KeyCode::Esc);
        key(&mut ui, KeyCode::Char('s'));
        check(&format!("largest_first_{w}x{h}"), &ui, &dir);
    }
    // Each kind has its colour in the bar and the panel.
    let mut ui = viewer_on_spam(&dir, 80, 24);
    key(&mut ui, KeyCode::Char('w'));
    ui.state.theme = Some(Theme::dark());
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(&regex_escape(&dir.path().display().to_string()), "[TMP]");
    settings.bind(|| insta::assert_snapshot!("breakdown_dark_80x24", ui.styled_screen()));
}

#[test]
fn marked_messages_with_the_total_after() {
    let dir = store();
    for (w, h) in [(80, 24), (160, 40)] {
        let mut ui = viewer_on_spam(&dir, w, h);
        // Mark the call of message 13: its result (14) goes with it.
        key(&mut ui, KeyCode::Up);
        key(&mut ui, KeyCode::Char(' '));
        check(&format!("edit_drop_{w}x{h}"), &ui, &dir);
        // The system prompt is refused, and says so.
        key(&mut ui, KeyCode::Home);
        key(&mut ui, KeyCode::Char(' '));
        check(&format!("edit_drop_refused_{w}x{h}"), &ui, &dir);
    }
}

#[test]
fn clear_preview() {
    let dir = store();
    for (w, h) in [(80, 24), (160, 40)] {
        let mut ui = viewer_on_spam(&dir, w, h);
        key(&mut ui, KeyCode::Char('C'));
        key(&mut ui, KeyCode::Char(' '));
        check(&format!("edit_clear_marked_{w}x{h}"), &ui, &dir);
        // Every result over 90 tokens, typed.
        key(&mut ui, KeyCode::Tab);
        ui.type_text("90");
        check(&format!("edit_clear_over_{w}x{h}"), &ui, &dir);
    }
}

#[test]
fn make_it_resumable_preview_and_question() {
    let dir = store();
    for (w, h) in [(80, 24), (160, 40)] {
        let mut ui = viewer_on_spam(&dir, w, h);
        key(&mut ui, KeyCode::Char('R'));
        // Every result over 90 tokens, typed.
        ui.type_text("90");
        check(&format!("resumable_{w}x{h}"), &ui, &dir);
        // Enter lays the fork out in the store and asks, with its bytes.
        key(&mut ui, KeyCode::Enter);
        check(&format!("resumable_confirm_{w}x{h}"), &ui, &dir);
        key(&mut ui, KeyCode::Esc);
    }
}

#[test]
fn a_fork_against_its_parent() {
    let ids = [
        (r"\b\d{8}-[0-9a-f]{8}[0-9a-f-]*…?", "[ID…]"),
        // Message ids, whole or cut at the edge of the screen.
        (r"\b[0-9a-f]{8}-[0-9a-f]{4}[0-9a-f-]*", "[MSG]"),
    ];
    for (w, h) in [(80, 24), (160, 40)] {
        let dir = store();
        let record = session_named(&dir, "investigate-why-emails-land-in-spam");
        let mut ui = viewer_on_spam(&dir, w, h);
        // Drop message 11 (it thinks, then calls a tool: 12 goes with it).
        for _ in 0..3 {
            key(&mut ui, KeyCode::Up);
        }
        key(&mut ui, KeyCode::Char(' '));
        key(&mut ui, KeyCode::Enter);
        check_with(&format!("edit_applied_{w}x{h}"), &ui, &dir, &ids);
        // Then clear the last result (12 now), and an agent adds a message.
        key(&mut ui, KeyCode::Char('C'));
        key(&mut ui, KeyCode::Char(' '));
        key(&mut ui, KeyCode::Enter);
        let path = active_context_file(&record);
        let mut context: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let messages = context["messages"].as_array_mut().unwrap();
        messages.push(serde_json::json!({"id": "added-since", "role": "user",
            "content": [{"type": "text", "text": "One more thing."}], "_sequence_number": 99}));
        std::fs::write(&path, serde_json::to_vec_pretty(&context).unwrap()).unwrap();
        key(&mut ui, KeyCode::Char('c'));
        key(&mut ui, KeyCode::Char('='));
        check_with(&format!("diff_{w}x{h}"), &ui, &dir, &ids);
        // Its parent, the first fork, dropped two messages of the root.
        key(&mut ui, KeyCode::Esc);
        key(&mut ui, KeyCode::Up);
        key(&mut ui, KeyCode::Char('='));
        check_with(&format!("diff_dropped_{w}x{h}"), &ui, &dir, &ids);
        // The root is no fork: the comparison says so.
        key(&mut ui, KeyCode::Esc);
        key(&mut ui, KeyCode::Home);
        key(&mut ui, KeyCode::Char('='));
        check_with(&format!("diff_root_{w}x{h}"), &ui, &dir, &ids);
    }
}

#[test]
fn export_asks_for_a_file_name() {
    let dir = store();
    let mut ui = viewer_on_spam(&dir, 80, 24);
    key(&mut ui, KeyCode::Char('x'));
    check("export_80x24", &ui, &dir);
    key(&mut ui, KeyCode::Esc);
    key(&mut ui, KeyCode::Char('='));
    check("jump_size_80x24", &ui, &dir);
}

/// Under CI (`CI` set, and not "", "0" or "false") a snapshot that differs
/// fails: INSTA_FORCE_PASS and INSTA_UPDATE, which accept or rewrite
/// snapshots, are refused.
#[test]
fn ci_accepts_no_snapshot_unseen() {
    let ci = std::env::var("CI").is_ok_and(|v| !matches!(v.as_str(), "" | "0" | "false"));
    for var in ["INSTA_FORCE_PASS", "INSTA_UPDATE"] {
        assert!(
            !(ci && std::env::var_os(var).is_some()),
            "{var} is set under CI: it would accept or rewrite snapshots"
        );
    }
}
