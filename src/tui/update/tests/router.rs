//! What the router itself does: the status line across screens, the mouse,
//! and the words of a purge or deletion report.

use super::*;

#[test]
fn the_status_line_clears_when_the_screen_changes() {
    let mut m = viewing(3);
    act(&mut m, Action::ToggleEncoding);
    assert!(m.app.status.is_some());
    act(&mut m, Action::Back);
    assert!(matches!(m.screen, Screen::List));
    assert_eq!(m.app.status, None, "the viewer's news is not the list's");

    let mut m = listed(true);
    act(&mut m, Action::ToggleEncoding);
    assert!(m.app.status.is_some());
    act(&mut m, Action::PurgePreview);
    assert_eq!(m.app.status, None);
    act(&mut m, Action::Back);
    act(&mut m, Action::ToggleEncoding);
    act(&mut m, Action::Open);
    assert_eq!(m.app.status, None);

    // Within a screen, what was said stays.
    let mut m = viewing(3);
    act(&mut m, Action::ToggleEncoding);
    act(&mut m, Action::Down);
    act(&mut m, Action::ReadMessage);
    assert!(
        m.app.status.is_some(),
        "reading a message is the same screen"
    );
}

#[test]
fn reports_count_in_words() {
    let report = |removed: usize, skipped: usize, failed: usize| PurgeReport {
        removed: (0..removed).map(|i| format!("r{i}")).collect(),
        skipped: (0..skipped)
            .map(|i| (format!("s{i}"), "used".into()))
            .collect(),
        failed: (0..failed)
            .map(|i| (format!("f{i}"), "busy".into()))
            .collect(),
        bytes_freed: 2048,
    };
    assert_eq!(
        report_text(&report(1, 0, 0)),
        ("removed 1 session, freed 2.0 KiB".to_string(), false)
    );
    assert_eq!(
        report_text(&report(0, 1, 1)),
        (
            "removed 0 sessions, freed 2.0 KiB; spared 1 session that changed (s0: used); 1 session failed (f0: busy)"
                .to_string(),
            true
        )
    );
    assert_eq!(
        report_text(&report(1200, 2, 0)).0,
        "removed 1,200 sessions, freed 2.0 KiB; spared 2 sessions that changed (s0: used)"
    );
}

#[test]
fn m_gives_the_mouse_to_the_terminal_and_back() {
    let mut m = viewing(3);
    assert!(m.app.mouse_capture, "the UI starts with the mouse");
    let list = listed(true);
    assert!(
        matches!(key(&list, KeyCode::Char('m')), Some(Msg::Type('m'))),
        "m types in the list's search"
    );
    let Some(Msg::Action(toggle)) = key(&m, KeyCode::Char('m')) else {
        panic!("m toggles the mouse in the viewer")
    };
    assert_eq!(toggle, Action::ToggleMouse);
    assert!(act(&mut m, toggle).is_empty());
    assert!(!m.app.mouse_capture);
    let said = &m.app.status.as_ref().unwrap().text;
    assert!(
        said.starts_with("mouse off: select text with the mouse"),
        "{said}"
    );
    act(&mut m, Action::ToggleMouse);
    assert!(m.app.mouse_capture);
    assert!(m.app.status.as_ref().unwrap().text.starts_with("mouse on"));
}

#[test]
fn ctrl_z_asks_to_suspend_from_every_screen_and_nothing_else_changes() {
    let ctrl_z = KeyEvent::new(KeyCode::Char('z'), KeyModifiers::CONTROL);
    for mut m in [listed(true), viewing(3)] {
        let msg = keymap::to_msg(&m, ctrl_z);
        assert!(matches!(msg, Some(Msg::Action(Action::Suspend))), "{msg:?}");
        let screen = format!("{:?}", std::mem::discriminant(&m.screen));
        let effects = update(&mut m, msg.unwrap());
        assert!(effects.is_empty());
        assert_eq!(m.app.suspend, 1, "one request for the runtime");
        assert_eq!(format!("{:?}", std::mem::discriminant(&m.screen)), screen);
        assert!(m.exit.is_none());
    }
    // Typing a query: ^Z is still a suspension, not a 'z'.
    let mut m = listed(true);
    update(&mut m, Msg::Type('a'));
    assert!(matches!(
        keymap::to_msg(&m, ctrl_z),
        Some(Msg::Action(Action::Suspend))
    ));
}

#[test]
fn while_the_screen_is_too_small_only_ctrl_c_acts() {
    let mut m = listed(true);
    update(&mut m, Msg::Resize(60, 20));
    let ctrl = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL);
    // ^D then y, typed blind, would delete the selected session.
    for event in [
        ctrl('d'),
        KeyEvent::new(KeyCode::Char('y'), KeyModifiers::NONE),
        KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE),
        KeyEvent::new(KeyCode::F(1), KeyModifiers::NONE),
        KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE),
    ] {
        assert!(keymap::to_msg(&m, event).is_none(), "{event:?}");
    }
    // What reaches update anyway (a paste, a wheel, an action) does nothing.
    for msg in [
        Msg::Action(Action::Delete),
        Msg::Paste("y".into()),
        Msg::Type('y'),
        Msg::Scroll(3),
    ] {
        assert!(update(&mut m, msg).is_empty());
        assert!(m.app.overlay.is_none(), "no question was opened");
    }
    assert!(matches!(
        keymap::to_msg(&m, ctrl('c')),
        Some(Msg::Action(Action::Quit))
    ));
    // Back at a size it can draw, the keys act again.
    update(&mut m, Msg::Resize(80, 24));
    assert!(matches!(
        keymap::to_msg(&m, ctrl('d')),
        Some(Msg::Action(Action::Delete))
    ));
}
