//! Transitions of the purge preview and deletes.

use super::*;

#[test]
fn purge_preview_replans_live_and_confirms_with_no_as_default() {
    let mut m = listed(true);
    let req = only_store!(
        act(&mut m, Action::PurgePreview),
        StoreOp::Purge(PurgeOp::Gather)
    );
    assert!(matches!(m.screen, Screen::Purge(_)));
    let candidates = vec![
        candidate(record("a", 1.0)),
        candidate(record("b", 2.0)),
        candidate(record("c", 40.0)),
    ];
    let gathered = Ok(Arc::new(candidates));
    reply(&mut m, req, PurgeReply::Gathered { result: gathered });
    assert_eq!(
        m.purge().unwrap().plan.as_ref().unwrap().removals().count(),
        1,
        "c is stale"
    );
    act(&mut m, Action::KeepLess);
    assert_eq!(m.app.settings.policy.keep, 1);
    assert_eq!(
        m.purge().unwrap().plan.as_ref().unwrap().removals().count(),
        2,
        "b is beyond keep now"
    );
    act(&mut m, Action::AgeMore);
    assert_eq!(m.app.settings.policy.max_age_days, 37.0);
    act(&mut m, Action::AgeLess);
    act(&mut m, Action::Confirm);
    assert!(
        matches!(&m.app.overlay, Some(Overlay::Confirm(c)) if c.action == ConfirmAction::Purge)
    );
    // Enter means No.
    assert!(matches!(
        key(&m, KeyCode::Enter),
        Some(Msg::Action(Action::No))
    ));
    act(&mut m, Action::No);
    assert_eq!(m.app.overlay, None);
    assert!(m.purge().unwrap().applying.is_none());
    act(&mut m, Action::Confirm);
    act(&mut m, Action::Down);
    assert!(
        m.app.overlay.is_some(),
        "other keys leave the question open"
    );
    let (req, plan) = only_store!(
        act(&mut m, Action::Yes),
        StoreOp::Purge(PurgeOp::Apply { plan }) => plan
    );
    assert_eq!(plan.removals().count(), 2);
    let progress = PurgeProgress {
        done: 1,
        total: 2,
        id: "b".into(),
    };
    reply(&mut m, req, PurgeReply::Progress { progress });
    assert_eq!(m.purge().unwrap().applying, Some((1, 2)));
    assert!(
        act(&mut m, Action::Back).is_empty() && matches!(m.screen, Screen::Purge(_)),
        "waits while deleting"
    );
    let report = PurgeReport {
        removed: vec!["b".into(), "c".into()],
        bytes_freed: 200,
        ..Default::default()
    };
    let effects = reply(&mut m, req, PurgeReply::Done { result: Ok(report) });
    assert!(asks!(&effects, StoreOp::List(ListOp::Scan)));
    assert!(asks!(&effects, StoreOp::Purge(PurgeOp::Gather)));
    assert!(
        m.app
            .status
            .as_ref()
            .unwrap()
            .text
            .contains("removed 2 sessions")
    );
    act(&mut m, Action::Back);
    assert!(matches!(m.screen, Screen::List));
}

/// The store's answer that session b may be deleted, with what it found.
fn b_checked(check: DeleteCheck) -> ListReply {
    ListReply::DeleteChecked {
        id: "b".into(),
        result: Ok(check),
    }
}

#[test]
fn delete_asks_then_deletes_one_session() {
    let mut m = listed(true);
    act(&mut m, Action::Down);
    let checked = |m: &mut Model| {
        let req = only_store!(act(m, Action::Delete), _);
        let check = DeleteCheck {
            bytes: 784,
            damage: None,
            recent: None,
        };
        reply(m, req, b_checked(check));
    };
    checked(&mut m);
    assert!(
        matches!(&m.app.overlay, Some(Overlay::Confirm(c)) if c.action == ConfirmAction::Delete { id: "b".into(), damaged: false })
    );
    act(&mut m, Action::No);
    assert_eq!(m.app.overlay, None);
    checked(&mut m);
    only_store!(
        act(&mut m, Action::Yes),
        StoreOp::List(ListOp::DeleteSession { record, .. }) if record.id == "b"
    );
}

#[test]
fn enter_on_an_archived_session_asks_to_restore_it_then_restores_it_off_the_ui_thread() {
    let mut m = listed(true);
    act(&mut m, Action::Down);
    m.list.rows[1].record.agent = crate::store::Agent::Claude;
    m.list.rows[1].record.archived = true;
    // Asked, not resumed: it is not where its agent looks.
    let effects = act(&mut m, Action::Resume);
    assert!(effects.is_empty(), "{effects:?}");
    let Some(Overlay::Confirm(c)) = &m.app.overlay else {
        panic!("{:?}", m.app.overlay)
    };
    assert_eq!(c.action, ConfirmAction::RestoreArchived { id: "b".into() });
    assert!(
        c.title.starts_with("Restore Claude Code session"),
        "{}",
        c.title
    );
    act(&mut m, Action::No);
    assert_eq!(m.app.overlay, None);
    act(&mut m, Action::Resume);
    let (req, id) = only_store!(
        act(&mut m, Action::Yes),
        StoreOp::List(ListOp::RestoreArchived { id }) => id
    );
    assert_eq!(id, "b");
    let written = vec![std::path::PathBuf::from("/h/.claude/projects/p/b.jsonl")];
    let restored = ListReply::RestoredArchived {
        id: "b".into(),
        result: Ok(written),
    };
    let effects = reply(&mut m, req, restored);
    let said = m.app.status.as_ref().unwrap();
    assert!(!said.is_error, "{said:?}");
    assert!(
        said.text
            .starts_with("restored session b to /h/.claude/projects/p/b.jsonl (1 file)"),
        "{said:?}"
    );
    // Listed again, so the row is the live session Enter resumes.
    assert!(asks!(&effects, StoreOp::List(ListOp::Scan)), "{effects:?}");
}

#[test]
fn a_delete_of_a_session_changed_moments_ago_says_so_in_the_question() {
    let mut m = listed(true);
    act(&mut m, Action::Down);
    m.list.rows[1].record.agent = crate::store::Agent::Claude;
    let req = only_store!(act(&mut m, Action::Delete), _);
    let check = DeleteCheck {
        bytes: 784,
        damage: None,
        recent: Some(40),
    };
    reply(&mut m, req, b_checked(check));
    let Some(Overlay::Confirm(c)) = &m.app.overlay else {
        panic!("{:?}", m.app.overlay)
    };
    assert!(
        c.lines
            .iter()
            .any(|l| l.contains("changed 40 seconds ago")
                && l.contains("no other process has it open")),
        "{:?}",
        c.lines
    );
}
