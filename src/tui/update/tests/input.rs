//! Transitions of safe input: pastes are text, line editing, keys that do
//! not collide with it, signals, and dialogs that say up front what cannot
//! be done.

use super::*;
use crate::tui::model::QUERY_LIMIT;

#[test]
fn a_multi_line_paste_is_one_search_and_never_enter() {
    let mut m = listed(true);
    only!(
        update(&mut m, Msg::Paste("why does the build\nplease\n".into())),
        Effect::Matcher(MatcherJob::Query { query, .. }) if query == "why does the build please "
    );
    assert_eq!(m.exit, None, "nothing resumed");
    assert!(m.app.overlay.is_none());
}

#[test]
fn a_huge_paste_is_cut_to_the_limit_with_a_note() {
    let mut m = listed(true);
    let effects = update(&mut m, Msg::Paste("x".repeat(200_000)));
    assert_eq!(effects.len(), 1, "one search for the whole paste");
    assert_eq!(m.list.query.value().chars().count(), QUERY_LIMIT);
    let status = m.app.status.clone().unwrap();
    assert!(
        status.is_error && status.text.contains("at most"),
        "{status:?}"
    );
    // A full field refuses typing too, and says why.
    m.app.status = None;
    assert!(update(&mut m, Msg::Type('y')).is_empty());
    assert!(m.app.status.is_some());
}

#[test]
fn a_paste_into_a_text_field_stays_in_the_field() {
    let mut m = listed(true);
    act(&mut m, Action::NewSession);
    update(&mut m, Msg::Paste("Fix the\nlogin bug\n".into()));
    let Some(Overlay::Input(input)) = &m.app.overlay else {
        panic!("the field is still open")
    };
    assert_eq!(input.text.value(), "Fix the login bug ");
    only_store!(
        act(&mut m, Action::Confirm),
        StoreOp::List(ListOp::CreateSession { prompt }) if prompt == "Fix the login bug"
    );
}

#[test]
fn a_pasted_number_sets_the_trim_and_other_text_is_ignored() {
    let mut m = viewing(30);
    act(&mut m, Action::TrimBudget);
    update(&mut m, Msg::Paste("50,000".into()));
    assert_eq!(m.viewer().unwrap().trim().unwrap().value, 50_000);
    update(&mut m, Msg::Paste("rm -rf /\n".into()));
    assert_eq!(m.viewer().unwrap().trim().unwrap().value, 50_000);
    // A paste in the purge preview does nothing at all.
    let mut m = listed(true);
    act(&mut m, Action::PurgePreview);
    assert!(update(&mut m, Msg::Paste("y\ny\n".into())).is_empty());
    assert!(m.app.overlay.is_none());
}

#[test]
fn the_search_edits_like_a_shell_line() {
    let mut m = listed(true);
    for c in "fix login".chars() {
        update(&mut m, Msg::Type(c));
    }
    let edit = |m: &mut Model, code, mods| {
        let msg = press(m, code, mods).expect("bound");
        update(m, msg)
    };
    edit(&mut m, KeyCode::Char('w'), KeyModifiers::CONTROL);
    assert_eq!(m.list.query.value(), "fix ");
    edit(&mut m, KeyCode::Char('a'), KeyModifiers::CONTROL);
    update(&mut m, Msg::Type('>'));
    assert_eq!(m.list.query.value(), ">fix ");
    edit(&mut m, KeyCode::End, KeyModifiers::NONE);
    edit(&mut m, KeyCode::Left, KeyModifiers::NONE);
    edit(&mut m, KeyCode::Left, KeyModifiers::NONE);
    edit(&mut m, KeyCode::Delete, KeyModifiers::NONE);
    assert_eq!(m.list.query.value(), ">fi ");
    edit(&mut m, KeyCode::Char('b'), KeyModifiers::ALT);
    edit(&mut m, KeyCode::Char('k'), KeyModifiers::CONTROL);
    assert_eq!(m.list.query.value(), ">");
    edit(&mut m, KeyCode::Char('u'), KeyModifiers::CONTROL);
    assert!(m.list.query.is_empty());
    assert!(m.app.overlay.is_none(), "no key above opened a dialog");
}

#[test]
fn list_actions_sit_on_keys_that_do_not_edit_text() {
    let m = listed(true);
    let action = |code, mods| match press(&m, code, mods) {
        Some(Msg::Action(a)) => Some(a),
        _ => None,
    };
    assert_eq!(
        action(KeyCode::F(7), KeyModifiers::NONE),
        Some(Action::NewSession)
    );
    assert_eq!(
        action(KeyCode::Char('n'), KeyModifiers::ALT),
        Some(Action::NewSession)
    );
    assert_eq!(
        action(KeyCode::F(2), KeyModifiers::NONE),
        Some(Action::Rename)
    );
    assert_eq!(
        action(KeyCode::F(8), KeyModifiers::NONE),
        Some(Action::Delete)
    );
    assert_eq!(
        action(KeyCode::Home, KeyModifiers::CONTROL),
        Some(Action::Home)
    );
    for (code, mods) in [
        (KeyCode::Char('a'), KeyModifiers::CONTROL),
        (KeyCode::Char('e'), KeyModifiers::CONTROL),
        (KeyCode::Home, KeyModifiers::NONE),
        (KeyCode::End, KeyModifiers::NONE),
        (KeyCode::Delete, KeyModifiers::NONE),
        (KeyCode::Right, KeyModifiers::NONE),
    ] {
        assert!(
            matches!(action(code, mods), Some(Action::Edit(_))),
            "{code:?} {mods:?} edits the query"
        );
    }
    let footer: Vec<String> = keymap::footer(keymap::Scope::List, &[])
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    assert!(footer.contains(&"F1".to_string()) && !footer.contains(&"?".to_string()));
}

#[test]
fn a_signal_ends_the_ui_with_its_number() {
    let mut m = listed(true);
    update(&mut m, Msg::Signal(15));
    assert_eq!(m.exit, Some(Exit::Signal(15)));
}

/// Delete pressed on the selected row: the store is asked first; the tag
/// of that request.
fn delete_check_asked(m: &mut Model) -> u64 {
    let effects = act(m, Action::Delete);
    assert!(
        m.app.overlay.is_none(),
        "nothing is asked before the store answers"
    );
    let (req, record) =
        only_store!(effects, StoreOp::List(ListOp::CheckDelete { record }) => record);
    assert_eq!(record.id, m.list.selected_row().unwrap().record.id);
    req
}

/// The store's answer to the check of a delete of session a.
fn checked(result: Result<DeleteCheck, UiError>) -> ListReply {
    ListReply::DeleteChecked {
        id: "a".into(),
        result,
    }
}

#[test]
fn delete_says_up_front_what_cannot_be_done() {
    // An agent owns it: the store says so, and nothing is asked.
    let mut m = listed(true);
    let req = delete_check_asked(&mut m);
    let refusal = UiError::new(
        ErrorKind::Refused,
        "a cannot be deleted: active: an agent owns it (is_active)",
    );
    reply(&mut m, req, checked(Err(refusal)));
    assert!(m.app.overlay.is_none());
    let status = m.app.status.as_ref().unwrap();
    assert!(
        status.is_error && status.text.contains("an agent owns it"),
        "{status:?}"
    );
    // Damaged: the question names the damage and the size the store
    // measured, and yes deletes it anyway.
    let mut m = listed(true);
    let req = delete_check_asked(&mut m);
    let check = DeleteCheck {
        bytes: 16_384,
        damage: Some("cannot parse meta.json".into()),
        recent: None,
    };
    // A late answer to another request opens nothing.
    reply(&mut m, req - 1, checked(Ok(check.clone())));
    assert!(m.app.overlay.is_none());
    reply(&mut m, req, checked(Ok(check)));
    let Some(Overlay::Confirm(confirm)) = &m.app.overlay else {
        panic!("a question")
    };
    assert!(confirm.title.contains("damaged"));
    assert!(
        confirm
            .lines
            .iter()
            .any(|l| l.contains("cannot parse meta.json"))
    );
    assert!(
        confirm.lines.iter().any(|l| l.contains("16 KiB")),
        "{:?}",
        confirm.lines
    );
    only_store!(
        act(&mut m, Action::Yes),
        StoreOp::List(ListOp::DeleteSession {
            even_damaged: true,
            ..
        })
    );
}

#[test]
fn trimming_a_session_an_agent_owns_asks_first() {
    let mut m = viewing(30);
    viewer_mut(&mut m).loaded.as_mut().unwrap().agent_owned = true;
    act(&mut m, Action::TrimKeepLast);
    assert!(act(&mut m, Action::Confirm).is_empty());
    assert!(matches!(
        &m.app.overlay,
        Some(Overlay::Confirm(c)) if c.action == ConfirmAction::TrimAgentOwned
    ));
    only_store!(
        act(&mut m, Action::Yes),
        StoreOp::Viewer(ViewerOp::ApplyTrim { .. })
    );
}

#[test]
fn trim_mode_moves_the_view_remembers_its_number_and_warns() {
    let mut m = viewing(30);
    act(&mut m, Action::TrimKeepLast);
    act(&mut m, Action::Home);
    assert_eq!(m.viewer().unwrap().selected, 0, "Home moves the view");
    assert_eq!(
        m.viewer().unwrap().trim().unwrap().value,
        20,
        "not the number"
    );
    act(&mut m, Action::End);
    assert_eq!(m.viewer().unwrap().selected, 30);
    update(&mut m, Msg::Type('7'));
    act(&mut m, Action::Back);
    act(&mut m, Action::TrimKeepLast);
    assert_eq!(m.viewer().unwrap().trim().unwrap().value, 7, "remembered");
    // A budget under the system prompt's 10 tokens keeps only the specials.
    act(&mut m, Action::TrimBudget);
    update(&mut m, Msg::Type('5'));
    let warnings = m.viewer().unwrap().trim().unwrap().warnings();
    assert!(
        warnings.iter().any(|w| w.contains("alone take 10 tokens")),
        "{warnings:?}"
    );
}

#[test]
fn the_help_scrolls_and_closes() {
    let mut m = listed(true);
    update(&mut m, Msg::Resize(80, 24));
    act(&mut m, Action::Help);
    act(&mut m, Action::PageDown);
    assert!(matches!(m.app.overlay, Some(Overlay::Help(n)) if n > 0));
    act(&mut m, Action::Back);
    assert!(m.app.overlay.is_none());
}
