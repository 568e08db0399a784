//! Transitions of a message read full screen: opening, scrolling that stops
//! at both ends, wrapping to the width, finding text, the mouse.

use super::*;
use crate::tui::model::MessageView;

/// A context whose last message is long: a thinking part, 100 numbered
/// lines (every tenth says "Needle"), one line of 400 characters, a tool call.
fn long_context() -> Context {
    let mut lines: Vec<String> = (1..=100)
        .map(|i| {
            if i % 10 == 0 {
                format!("line {i} has a Needle in it")
            } else {
                format!("line {i}")
            }
        })
        .collect();
    lines.push("word ".repeat(80));
    let v = json!({"id": "ctx", "_mutation_counter": 3, "messages": [
        {"id": "m0", "role": "user", "_sequence_number": 1,
         "content": [{"type": "text", "text": "show me"}]},
        {"id": "m1", "role": "assistant", "_sequence_number": 2, "content": [
            {"type": "thinking", "text": "first\nsecond"},
            {"type": "text", "text": lines.join("\n")},
            {"type": "tool_use", "call_id": "c1", "name": "bash", "arguments": "{\"cmd\": \"ls\"}"},
        ]},
    ]});
    Context::from_raw(
        v.as_object().unwrap().clone(),
        Path::new("/s/a/memory/ctx.json"),
    )
    .unwrap()
}

/// The viewer on the long message (selected: the last one).
fn on_long_message() -> Model {
    let (m, _) = opened_on(long_context());
    assert_eq!(m.viewer().unwrap().selected, 1);
    m
}

fn reading(m: &Model) -> &MessageView {
    m.viewer()
        .unwrap()
        .message()
        .expect("a message is read full screen")
}

fn text_of_row(view: &MessageView, i: usize) -> &str {
    &view.text[view.row(i)]
}

#[test]
fn enter_reads_the_message_and_r_resumes() {
    let m = on_long_message();
    for code in [KeyCode::Enter, KeyCode::Char('v')] {
        assert!(matches!(
            key(&m, code),
            Some(Msg::Action(Action::ReadMessage))
        ));
    }
    assert!(matches!(
        key(&m, KeyCode::Char('r')),
        Some(Msg::Action(Action::Resume))
    ));
    let mut m = m;
    only_store!(
        act(&mut m, Action::Resume),
        StoreOp::List(ListOp::Resume { record, .. }) if record.id == "a"
    );

    let mut m = on_long_message();
    assert!(act(&mut m, Action::ReadMessage).is_empty());
    assert_eq!(keymap::scope(&m), keymap::Scope::Message);
    let view = reading(&m);
    assert_eq!(view.index, 1);
    assert_eq!((view.width, view.height), (80, 20), "80x24 less four lines");
    // Labelled parts, each on its own lines, as the detail pane shows them.
    assert_eq!(text_of_row(view, 0), "[thinking]");
    assert_eq!(text_of_row(view, 1), "first");
    assert_eq!(text_of_row(view, 4), "line 1");
    let rows = view.rows.len();
    assert_eq!(text_of_row(view, rows - 2), "[tool call bash c1]");
    assert_eq!(text_of_row(view, rows - 1), "{\"cmd\": \"ls\"}");
    // 2 thinking rows + label + blank, 100 lines, 400 characters in 5 rows,
    // a blank, the call's label and its arguments.
    assert_eq!(rows, 4 + 100 + 5 + 3);
    for i in 0..rows {
        let row = text_of_row(view, i).trim_end();
        assert!(row.chars().count() <= 80, "row {i} is {row:?}");
    }
    act(&mut m, Action::Back);
    assert_eq!(m.viewer().unwrap().mode, ViewerMode::Browse);
    assert_eq!(m.viewer().unwrap().selected, 1, "the selection stays");
}

#[test]
fn scrolling_stops_at_both_ends() {
    let mut m = on_long_message();
    act(&mut m, Action::ReadMessage);
    let last = reading(&m).rows.len() - 20;
    act(&mut m, Action::Up);
    assert_eq!(reading(&m).scroll, 0, "no row before the first");
    act(&mut m, Action::Down);
    act(&mut m, Action::Down);
    assert_eq!(reading(&m).scroll, 2);
    act(&mut m, Action::PageDown);
    assert_eq!(
        reading(&m).scroll,
        2 + 19,
        "a page keeps one row of the last"
    );
    act(&mut m, Action::End);
    assert_eq!(reading(&m).scroll, last);
    act(&mut m, Action::Down);
    act(&mut m, Action::PageDown);
    assert_eq!(reading(&m).scroll, last, "the last page stays full");
    update(&mut m, Msg::Scroll(3));
    assert_eq!(reading(&m).scroll, last, "the wheel stops there too");
    act(&mut m, Action::PageUp);
    assert_eq!(reading(&m).scroll, last - 19);
    act(&mut m, Action::Home);
    assert_eq!(reading(&m).scroll, 0);
    act(&mut m, Action::PageUp);
    assert_eq!(reading(&m).scroll, 0);
}

#[test]
fn a_resize_wraps_again_and_keeps_the_place() {
    let mut m = on_long_message();
    act(&mut m, Action::ReadMessage);
    act(&mut m, Action::PageDown);
    act(&mut m, Action::PageDown);
    let top = text_of_row(reading(&m), reading(&m).scroll).to_string();
    assert_eq!(top, "line 35");
    update(&mut m, Msg::Resize(160, 40));
    let view = reading(&m);
    assert_eq!((view.width, view.height), (160, 36));
    assert_eq!(view.rows.len(), 4 + 100 + 3 + 3, "400 characters in 3 rows");
    assert_eq!(text_of_row(view, view.scroll), top);
    update(&mut m, Msg::Resize(80, 24));
    assert_eq!(reading(&m).rows.len(), 4 + 100 + 5 + 3);
}

#[test]
fn find_goes_from_match_to_match() {
    let mut m = on_long_message();
    act(&mut m, Action::ReadMessage);
    let Some(Msg::Action(find)) = key(&m, KeyCode::Char('/')) else {
        panic!("/ finds")
    };
    act(&mut m, find);
    assert_eq!(keymap::scope(&m), keymap::Scope::Find);
    assert!(
        matches!(key(&m, KeyCode::Char('n')), Some(Msg::Type('n'))),
        "n is text while typing"
    );
    for c in "needle".chars() {
        update(&mut m, Msg::Type(c));
    }
    let view = reading(&m);
    let find = view.find.as_ref().unwrap();
    assert_eq!(find.matches.len(), 10, "any case");
    assert_eq!(find.current, Some(0));
    assert_eq!(&view.text[find.matches[0].clone()], "Needle");
    assert_eq!(view.scroll, 0, "line 10 is on the first screen");
    act(&mut m, Action::Confirm);
    assert_eq!(keymap::scope(&m), keymap::Scope::Message);
    assert!(matches!(
        key(&m, KeyCode::Char('n')),
        Some(Msg::Action(Action::NextMatch))
    ));
    assert!(matches!(
        key(&m, KeyCode::Char('N')),
        Some(Msg::Action(Action::PrevMatch))
    ));
    act(&mut m, Action::NextMatch);
    // "line 20" is row 4 + 19: off the first screen, so the view moved to
    // put it a third of the way down.
    let view = reading(&m);
    assert_eq!(text_of_row(view, 23), "line 20 has a Needle in it");
    assert_eq!(view.scroll, 23 - 20 / 3);
    act(&mut m, Action::NextMatch);
    let view = reading(&m);
    assert_eq!(view.find.as_ref().unwrap().current, Some(2));
    assert_eq!(view.scroll, 23 - 20 / 3, "line 30 is on screen: no move");
    act(&mut m, Action::PrevMatch);
    act(&mut m, Action::PrevMatch);
    act(&mut m, Action::PrevMatch);
    let view = reading(&m);
    assert_eq!(
        view.find.as_ref().unwrap().current,
        Some(9),
        "round the end"
    );
    assert!(
        view.visible()
            .contains(&view.row_of(view.find.as_ref().unwrap().matches[9].start))
    );
    assert_eq!(view.scroll, view.max_scroll());

    // A new search starts from the screen shown; one with no match says so.
    act(&mut m, Action::Home);
    act(&mut m, Action::PageDown);
    act(&mut m, Action::PageDown);
    act(&mut m, Action::Find);
    update(&mut m, Msg::Type('N'));
    update(&mut m, Msg::Paste("EEDLE".into()));
    let view = reading(&m);
    let find = view.find.as_ref().unwrap();
    assert_eq!(
        find.current,
        Some(3),
        "line 40 is the first at or after row 38"
    );
    update(&mut m, Msg::Type('z'));
    let find = reading(&m).find.clone().unwrap();
    assert!(find.matches.is_empty() && find.current.is_none());
    act(&mut m, Action::Back);
    assert!(reading(&m).find.is_none(), "Esc cancels the search");
    assert_eq!(keymap::scope(&m), keymap::Scope::Message);
    act(&mut m, Action::NextMatch);
    assert_eq!(
        m.app.status.as_ref().unwrap().text,
        "nothing to look for yet: / starts a search"
    );
}

#[test]
fn a_huge_message_opens_cut_at_the_limit() {
    let huge = "0123456789 ".repeat(crate::tui::model::MESSAGE_LIMIT / 5);
    let v = json!({"id": "ctx", "messages": [
        {"id": "big", "role": "tool", "_sequence_number": 1,
         "content": [{"type": "tool_result", "call_id": "c", "content": huge}]}]});
    let ctx = Context::from_raw(
        v.as_object().unwrap().clone(),
        Path::new("/s/a/memory/ctx.json"),
    )
    .unwrap();
    let (mut m, _) = opened_on(ctx);
    act(&mut m, Action::ReadMessage);
    let view = reading(&m);
    assert!(view.text.len() < crate::tui::model::MESSAGE_LIMIT + 200);
    assert!(view.left_out > crate::tui::model::MESSAGE_LIMIT);
    act(&mut m, Action::End);
    let view = reading(&m);
    let last = text_of_row(view, view.rows.len() - 1);
    assert!(last.ends_with("prints all of it]"), "{last:?}");
    assert_eq!(view.scroll, view.rows.len() - view.height);
}

#[test]
fn m_toggles_the_mouse_while_reading_too() {
    let mut m = on_long_message();
    act(&mut m, Action::ReadMessage);
    assert!(matches!(
        key(&m, KeyCode::Char('m')),
        Some(Msg::Action(Action::ToggleMouse))
    ));
    act(&mut m, Action::ToggleMouse);
    assert!(!m.app.mouse_capture);
    act(&mut m, Action::ToggleMouse);
    assert!(m.app.mouse_capture);
    assert!(reading(&m).find.is_none(), "the message view is still open");
    act(&mut m, Action::Find);
    assert!(
        matches!(key(&m, KeyCode::Char('m')), Some(Msg::Type('m'))),
        "m is text in the search"
    );
}
