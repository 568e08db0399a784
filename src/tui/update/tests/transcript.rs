//! Transitions of the transcript: switching with the table (one selected
//! message), scrolling that stops at both ends, message to message, the
//! display settings, a search that unfolds what it finds, copying.

use super::*;
use crate::render::transcript::{TextMatch, Tools};
use crate::tui::model::TranscriptView;

/// The transcript open on `viewing(n)`: each message is a header, its line
/// and a blank row (three rows); the screen has 20 rows of text.
fn reading(n: usize) -> Model {
    let mut m = viewing(n);
    act(&mut m, Action::ToggleTranscript);
    m
}

fn transcript(m: &Model) -> &TranscriptView {
    m.viewer()
        .unwrap()
        .transcript()
        .expect("the transcript shows")
}

fn position(m: &Model) -> (usize, usize) {
    let t = transcript(m);
    (t.top, t.top_row)
}

fn selected(m: &Model) -> usize {
    m.viewer().unwrap().selected
}

/// A context whose message 2 holds a tool result of 30 lines, the word
/// "needle" only on its 25th line (folded away when tools are truncated),
/// and message 5 a thinking part with "needle" in it.
fn tool_context() -> Context {
    let log: Vec<String> = (1..=30)
        .map(|i| {
            if i == 25 {
                "the needle is here".to_string()
            } else {
                format!("log line {i}")
            }
        })
        .collect();
    let mut messages = vec![
        json!({"id": "m0", "role": "user", "_sequence_number": 1, "content": "find it"}),
        json!({"id": "m1", "role": "assistant", "_sequence_number": 2, "content": [
            {"type": "tool_use", "call_id": "c1", "name": "bash", "arguments": "{\"cmd\": \"grep\"}"}]}),
        json!({"id": "m2", "role": "tool", "_sequence_number": 3, "content": [
            {"type": "tool_result", "call_id": "c1", "content": log.join("\n")}]}),
    ];
    for i in 3..12 {
        let content = if i == 5 {
            json!([{"type": "thinking", "text": "a needle in my thoughts"},
                   {"type": "text", "text": "an answer"}])
        } else {
            json!([{"type": "text", "text": format!("message {i}")}])
        };
        messages.push(json!({"id": format!("m{i}"), "role": "assistant",
            "_sequence_number": i + 1, "content": content}));
    }
    let v = json!({"id": "ctx", "_mutation_counter": 12, "messages": messages});
    Context::from_raw(
        v.as_object().unwrap().clone(),
        Path::new("/s/a/memory/ctx.json"),
    )
    .unwrap()
}

#[test]
fn every_transcript_key_is_bound_in_the_table() {
    let m = reading(3);
    assert_eq!(keymap::scope(&m), keymap::Scope::Transcript);
    let c = KeyCode::Char;
    for (code, action) in [
        (c('j'), Action::Down),
        (KeyCode::Down, Action::Down),
        (c('k'), Action::Up),
        (KeyCode::Up, Action::Up),
        (c('d'), Action::HalfPageDown),
        (c('u'), Action::HalfPageUp),
        (KeyCode::PageDown, Action::PageDown),
        (c(' '), Action::PageDown),
        (KeyCode::PageUp, Action::PageUp),
        (c('g'), Action::Home),
        (KeyCode::Home, Action::Home),
        (c('G'), Action::End),
        (KeyCode::End, Action::End),
        (c(']'), Action::NextMessage),
        (c('['), Action::PrevMessage),
        (c('/'), Action::Find),
        (c('n'), Action::NextMatch),
        (c('N'), Action::PrevMatch),
        (c('T'), Action::ToggleThinking),
        (c('t'), Action::CycleTools),
        (c('R'), Action::ToggleRaw),
        (c('y'), Action::CopyMessage),
        (c('Y'), Action::CopySessionId),
        (c('p'), Action::CopySessionPath),
        (c('e'), Action::ToggleEncoding),
        (c('m'), Action::ToggleMouse),
        (KeyCode::Enter, Action::ReadMessage),
        (c('v'), Action::ReadMessage),
        (KeyCode::Tab, Action::ToggleTranscript),
        (KeyCode::Esc, Action::Back),
        (c('q'), Action::Back),
    ] {
        assert!(
            matches!(key(&m, code), Some(Msg::Action(a)) if a == action),
            "{code:?} should be {action:?}"
        );
    }
    let table = viewing(3);
    assert!(matches!(
        key(&table, KeyCode::Tab),
        Some(Msg::Action(Action::ToggleTranscript))
    ));
}

#[test]
fn the_selection_is_shared_with_the_table() {
    let mut m = viewing(30);
    act(&mut m, Action::Home);
    act(&mut m, Action::Down);
    act(&mut m, Action::Down);
    assert_eq!(selected(&m), 2);
    act(&mut m, Action::ToggleTranscript);
    assert_eq!(position(&m), (2, 0), "opens at the selected message");
    act(&mut m, Action::NextMessage);
    assert_eq!((selected(&m), position(&m)), (3, (3, 0)));
    act(&mut m, Action::ToggleTranscript);
    assert_eq!(m.viewer().unwrap().mode, ViewerMode::Browse);
    assert_eq!(selected(&m), 3, "the table has the transcript's selection");
    act(&mut m, Action::Down);
    act(&mut m, Action::ToggleTranscript);
    assert_eq!(position(&m), (4, 0));
    act(&mut m, Action::Back);
    assert_eq!(
        m.viewer().unwrap().mode,
        ViewerMode::Browse,
        "Esc: the table"
    );
    // Counts work from either: the encoding switches in the transcript too.
    act(&mut m, Action::ToggleTranscript);
    only_store!(
        act(&mut m, Action::ToggleEncoding),
        StoreOp::Viewer(ViewerOp::CountTokens { .. })
    );
    assert!(m.viewer().unwrap().transcript().is_some());
}

#[test]
fn scrolling_stops_at_both_ends_and_the_selection_follows() {
    // 31 messages of three rows: 93 rows; the last screen starts at row 73,
    // message 24's second row.
    let mut m = reading(30);
    assert_eq!(selected(&m), 30);
    assert_eq!(position(&m), (24, 1), "the last message, the screen full");
    act(&mut m, Action::Down);
    assert_eq!(position(&m), (24, 1), "nothing after the end");
    act(&mut m, Action::Home);
    assert_eq!((selected(&m), position(&m)), (0, (0, 0)));
    act(&mut m, Action::Up);
    assert_eq!(position(&m), (0, 0), "nothing before the first row");
    act(&mut m, Action::Down);
    assert_eq!(position(&m), (0, 1));
    act(&mut m, Action::HalfPageDown);
    assert_eq!(position(&m), (3, 2), "half of 20 rows");
    assert_eq!(selected(&m), 3, "the selection comes on screen");
    act(&mut m, Action::HalfPageUp);
    assert_eq!(position(&m), (0, 1));
    assert_eq!(selected(&m), 3, "still on screen: it stays");
    act(&mut m, Action::PageDown);
    assert_eq!(position(&m), (6, 2), "a page keeps one row of the last");
    act(&mut m, Action::PageUp);
    assert_eq!(position(&m), (0, 1));
    act(&mut m, Action::End);
    assert_eq!((selected(&m), position(&m)), (30, (24, 1)));
    update(&mut m, Msg::Scroll(3));
    assert_eq!(position(&m), (24, 1), "the wheel stops there too");
    update(&mut m, Msg::Scroll(-1));
    assert_eq!(position(&m), (24, 0));
    assert_eq!(selected(&m), 30, "still on screen: it stays");
    update(&mut m, Msg::Scroll(-1));
    assert_eq!(position(&m), (23, 2));
    assert_eq!(selected(&m), 30, "its header is the last row");
    update(&mut m, Msg::Scroll(-1));
    assert_eq!(position(&m), (23, 1));
    assert_eq!(selected(&m), 29, "off the screen's end: the last one shown");
}

#[test]
fn brackets_go_from_header_to_header() {
    let mut m = reading(30);
    act(&mut m, Action::Home);
    act(&mut m, Action::NextMessage);
    act(&mut m, Action::NextMessage);
    assert_eq!((selected(&m), position(&m)), (2, (2, 0)));
    act(&mut m, Action::Down);
    assert_eq!(position(&m), (2, 1));
    act(&mut m, Action::PrevMessage);
    assert_eq!(
        (selected(&m), position(&m)),
        (2, (2, 0)),
        "first the start of this message"
    );
    act(&mut m, Action::PrevMessage);
    assert_eq!((selected(&m), position(&m)), (1, (1, 0)));
    act(&mut m, Action::End);
    act(&mut m, Action::NextMessage);
    assert_eq!(selected(&m), 30, "no message after the last");
    act(&mut m, Action::Home);
    act(&mut m, Action::PrevMessage);
    assert_eq!((selected(&m), position(&m)), (0, (0, 0)));
}

#[test]
fn display_keys_change_what_shows_and_lay_out_again() {
    let (mut m, _) = opened_on(tool_context());
    act(&mut m, Action::Home);
    act(&mut m, Action::ToggleTranscript);
    let rows = |m: &Model| transcript(m).laid(2).unwrap().height();
    // Truncated: the header, the label, 6 lines, "… 24 more lines", a blank.
    assert_eq!(rows(&m), 10);
    act(&mut m, Action::CycleTools);
    assert_eq!(m.app.settings.display.tools, Tools::Full);
    assert_eq!(rows(&m), 1 + 1 + 30 + 1);
    assert!(m.app.status.as_ref().unwrap().text.contains("in full"));
    act(&mut m, Action::CycleTools);
    assert_eq!(m.app.settings.display.tools, Tools::Off);
    assert_eq!(rows(&m), 3, "header, the label line, a blank");
    act(&mut m, Action::CycleTools);
    assert_eq!(m.app.settings.display.tools, Tools::Truncated);
    let thinking = |m: &Model| transcript(m).laid(5).map(|l| l.height());
    for _ in 0..5 {
        act(&mut m, Action::NextMessage);
    }
    assert_eq!(selected(&m), 5);
    let folded = thinking(&m).unwrap();
    act(&mut m, Action::ToggleThinking);
    assert!(m.app.settings.display.thinking);
    assert_eq!(
        thinking(&m).unwrap(),
        folded + 1,
        "its label, then its line"
    );
    act(&mut m, Action::ToggleRaw);
    assert!(m.app.settings.display.raw);
    assert_eq!(transcript(&m).laid_with, m.app.settings.display);
    act(&mut m, Action::ToggleRaw);
    assert!(!m.app.settings.display.raw);
}

#[test]
fn only_what_the_screen_shows_is_laid_out() {
    let mut m = reading(10_000);
    let laid = transcript(&m).laid_count();
    assert!(laid <= 8, "{laid} messages laid out to open at the end");
    act(&mut m, Action::Home);
    act(&mut m, Action::PageDown);
    let laid = transcript(&m).laid_count();
    assert!(laid <= 24, "{laid} messages laid out after a page");
    update(&mut m, Msg::Resize(120, 40));
    assert_eq!(transcript(&m).width, 120);
    // 36 rows: twelve messages on screen, thirteen for the last screen.
    let laid = transcript(&m).laid_count();
    assert!(laid <= 26, "{laid}: laid out again, lazily");
}

/// Starts a search for `text`; returns the request the finder answers.
fn search(m: &mut Model, text: &str) -> u64 {
    act(m, Action::Find);
    assert_eq!(keymap::scope(m), keymap::Scope::Find);
    let mut effects = Vec::new();
    for c in text.chars() {
        effects = update(m, Msg::Type(c));
    }
    let (req, query, from) = only!(
        effects,
        Effect::Find(FindJob { req, query, from, .. }) => (req, query, from)
    );
    assert_eq!(query, text);
    assert_eq!(from, selected(m));
    req
}

fn found(m: &mut Model, req: u64, hits: Vec<TextMatch>, complete: bool) {
    let hits = Arc::new(hits);
    reply(
        m,
        req,
        ViewerReply::TranscriptFound {
            hits,
            complete,
            more: false,
        },
    );
}

#[test]
fn a_match_in_a_folded_part_unfolds_it_and_comes_on_screen() {
    let (mut m, _) = opened_on(tool_context());
    act(&mut m, Action::ToggleTranscript);
    act(&mut m, Action::Home);
    let req = search(&mut m, "needle");
    // In the log the needle is at the start of line 25 (byte 4 of "the needle").
    let start = (1..25)
        .map(|i| {
            if i == 25 {
                0
            } else {
                format!("log line {i}").len() + 1
            }
        })
        .sum::<usize>()
        + 4;
    let in_log = TextMatch {
        message: 2,
        part: 0,
        start,
        end: start + 6,
    };
    let in_thinking = TextMatch {
        message: 5,
        part: 0,
        start: 2,
        end: 8,
    };
    // A stale answer (an older request) changes nothing.
    found(&mut m, req - 1, vec![in_thinking], true);
    assert!(transcript(&m).unfolded.is_empty());
    // The first match from the selected message comes first, alone.
    found(&mut m, req, vec![in_log], false);
    let view = transcript(&m);
    assert!(view.unfolded.contains(&(2, 0)), "the truncated log unfolds");
    assert_eq!(selected(&m), 2);
    let laid = view.laid(2).unwrap();
    assert!(laid.block.shown[0].whole);
    let row = laid.row_of(0, start).unwrap();
    assert_eq!(row, 2 + 24, "header, label, then line 25");
    let top = view.top_row;
    assert!(
        view.top == 2 && top <= row && row < top + view.height,
        "{view:?}"
    );
    let find = view.find.as_ref().unwrap();
    assert_eq!((find.current, find.complete), (Some(0), false));
    // Then every match: the current one stays current.
    found(&mut m, req, vec![in_log, in_thinking], true);
    let find = transcript(&m).find.as_ref().unwrap();
    assert_eq!((find.current, find.complete), (Some(0), true));
    update(&mut m, Msg::Action(Action::Confirm));
    assert_eq!(keymap::scope(&m), keymap::Scope::Transcript);
    // n goes to the thinking, hidden by the display: it unfolds too.
    act(&mut m, Action::NextMatch);
    assert_eq!(selected(&m), 5);
    assert!(transcript(&m).unfolded.contains(&(5, 0)));
    assert!(!m.app.settings.display.thinking, "the setting stays");
    act(&mut m, Action::NextMatch);
    assert_eq!(selected(&m), 2, "round the end");
    act(&mut m, Action::PrevMatch);
    assert_eq!(selected(&m), 5);
    // Raw mode searches again (the text differs).
    only!(
        act(&mut m, Action::ToggleRaw),
        Effect::Find(FindJob { raw: true, .. })
    );
    // Esc while typing drops the search.
    act(&mut m, Action::Find);
    act(&mut m, Action::Back);
    assert!(transcript(&m).find.is_none());
    assert_eq!(keymap::scope(&m), keymap::Scope::Transcript);
}

#[test]
fn a_search_with_no_match_says_so_and_n_without_one_says_how() {
    let mut m = reading(5);
    act(&mut m, Action::NextMatch);
    assert!(
        m.app
            .status
            .as_ref()
            .unwrap()
            .text
            .contains("/ starts a search")
    );
    let req = search(&mut m, "zz");
    found(&mut m, req, Vec::new(), true);
    let find = transcript(&m).find.as_ref().unwrap();
    assert!(find.hits.is_empty() && find.complete && find.current.is_none());
    // Erasing the text stops asking.
    let effects = update(
        &mut m,
        Msg::Action(Action::Edit(InputRequest::DeletePrevChar)),
    );
    assert_eq!(effects.len(), 1);
    let effects = update(
        &mut m,
        Msg::Action(Action::Edit(InputRequest::DeletePrevChar)),
    );
    assert!(effects.is_empty());
    update(&mut m, Msg::Action(Action::Confirm));
    assert!(
        transcript(&m).find.is_none(),
        "Enter on an empty search closes it"
    );
}

#[test]
fn y_copies_the_message_and_capital_y_and_p_the_session() {
    let mut m = reading(3);
    act(&mut m, Action::PrevMessage);
    act(&mut m, Action::CopyMessage);
    let (tag, text) = m.app.clipboard.clone().unwrap();
    assert_eq!(text, "message 1");
    assert_eq!(
        m.app.status.as_ref().unwrap().text,
        "sent message #3 (9 B) to the terminal's clipboard (OSC 52)"
    );
    act(&mut m, Action::CopySessionId);
    let (next, text) = m.app.clipboard.clone().unwrap();
    assert!(next > tag, "each copy is a new request");
    assert_eq!(text, "a");
    act(&mut m, Action::CopySessionPath);
    assert_eq!(m.app.clipboard.as_ref().unwrap().1, "/s/a");
    assert_eq!(
        m.app.status.as_ref().unwrap().text,
        "sent the session path /s/a to the terminal's clipboard (OSC 52)"
    );
    // The table copies too.
    act(&mut m, Action::ToggleTranscript);
    act(&mut m, Action::Home);
    act(&mut m, Action::CopyMessage);
    assert_eq!(m.app.clipboard.as_ref().unwrap().1, "be careful");
}

#[test]
fn a_message_too_big_for_a_clipboard_is_not_copied() {
    let big = "x".repeat(1_000_001);
    let v = json!({"id": "ctx", "messages": [{"id": "m0", "role": "user", "content": big}]});
    let ctx = Context::from_raw(v.as_object().unwrap().clone(), Path::new("/s/a/c.json")).unwrap();
    let (mut m, _) = opened_on(ctx);
    act(&mut m, Action::CopyMessage);
    assert!(m.app.clipboard.is_none());
    let status = m.app.status.as_ref().unwrap();
    assert!(
        status.is_error && status.text.starts_with("not copied"),
        "{status:?}"
    );
}

#[test]
fn enter_reads_the_selected_message_and_esc_comes_back_to_the_transcript() {
    let mut m = reading(30);
    act(&mut m, Action::Home);
    act(&mut m, Action::NextMessage);
    act(&mut m, Action::Down);
    let before = transcript(&m).clone();
    act(&mut m, Action::ReadMessage);
    let view = m
        .viewer()
        .unwrap()
        .message()
        .expect("the message full screen");
    assert_eq!(view.index, 1);
    assert_eq!(&*view.text, "message 0");
    update(&mut m, Msg::Resize(100, 30));
    act(&mut m, Action::Back);
    let after = transcript(&m);
    assert_eq!((after.top, after.top_row), (before.top, before.top_row));
    assert_eq!(after.width, 100, "laid out for the new size");
    assert_eq!(selected(&m), 1);
    act(&mut m, Action::Back);
    assert_eq!(m.viewer().unwrap().mode, ViewerMode::Browse);
    // From the table, Esc in the message goes back to the table.
    act(&mut m, Action::ReadMessage);
    act(&mut m, Action::Back);
    assert_eq!(m.viewer().unwrap().mode, ViewerMode::Browse);
}
