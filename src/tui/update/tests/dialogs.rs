//! Transitions of the dialogs and the help overlay.

use super::*;

#[test]
fn help_overlay_opens_and_closes() {
    let mut m = listed(true);
    act(&mut m, Action::Help);
    assert_eq!(m.app.overlay, Some(Overlay::Help(0)));
    assert_eq!(keymap::scope(&m), keymap::Scope::Help);
    act(&mut m, Action::Down);
    assert_eq!(
        m.list.selected, 0,
        "keys do not reach the list under the help"
    );
    act(&mut m, Action::Back);
    assert_eq!(m.app.overlay, None);
    assert!(!keymap::help_lines(keymap::Scope::List).is_empty());
}

#[test]
fn new_and_rename_use_text_fields() {
    let mut m = listed(false);
    assert!(act(&mut m, Action::NewSession).is_empty());
    assert!(
        m.app.status.as_ref().unwrap().is_error,
        "peteos folders cannot make sessions"
    );
    assert!(act(&mut m, Action::Rename).is_empty());

    let mut m = listed(true);
    act(&mut m, Action::NewSession);
    assert_eq!(keymap::scope(&m), keymap::Scope::Input);
    for c in "Fix it".chars() {
        update(&mut m, Msg::Type(c));
    }
    act(&mut m, Action::Edit(InputRequest::DeletePrevChar));
    only_store!(
        act(&mut m, Action::Confirm),
        StoreOp::List(ListOp::CreateSession { prompt }) if prompt == "Fix i"
    );
    let created = Ok(Box::new(record("new", 0.0)));
    let effects = reply(&mut m, UNCHECKED, ListReply::Created { result: created });
    assert!(asks!(&effects, StoreOp::List(ListOp::Scan)));
    assert_eq!(m.list.pending_select.as_deref(), Some("new"));

    let mut m = listed(true);
    act(&mut m, Action::Rename);
    assert!(
        matches!(&m.app.overlay, Some(Overlay::Input(i)) if i.text.value() == "name-a" && i.purpose == InputPurpose::Rename { id: "a".into() })
    );
    for _ in 0..6 {
        act(&mut m, Action::Edit(InputRequest::DeletePrevChar));
    }
    assert!(
        act(&mut m, Action::Confirm).is_empty(),
        "empty names are refused"
    );
    update(&mut m, Msg::Type('z'));
    only_store!(
        act(&mut m, Action::Confirm),
        StoreOp::List(ListOp::RenameSession { record, name }) if record.id == "a" && name == "z"
    );
    let mut renamed = record("a", 1.0);
    renamed.name = "z".into();
    reply(
        &mut m,
        UNCHECKED,
        ListReply::Renamed {
            result: Ok(Box::new(renamed)),
        },
    );
    assert_eq!(m.list.rows[0].record.name, "z");
    act(&mut m, Action::NewSession);
    act(&mut m, Action::Back);
    assert_eq!(m.app.overlay, None);
}
