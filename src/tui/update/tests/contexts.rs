//! Transitions of the viewer's list of contexts: listed, counted, made
//! active, deleted after the store and the person said yes.

use super::*;

fn info(id: &str, relation: Relation, depth: usize, origin: Option<&str>) -> ContextInfo {
    ContextInfo {
        id: id.into(),
        messages: Some(4),
        tokens: None,
        created_at: Some(NOW - 3600.0),
        created_from: Some(CreatedFrom::File),
        relation,
        origin_context_id: origin.map(str::to_string),
        children: Vec::new(),
        depth,
        error: None,
    }
}

/// root (ancestor) → ctx (active), root → other.
fn three() -> Vec<ContextInfo> {
    vec![
        info("root", Relation::Ancestor, 0, None),
        info("ctx", Relation::Active, 1, Some("root")),
        info("other", Relation::Other, 1, Some("root")),
    ]
}

fn counted(mut list: Vec<ContextInfo>) -> Vec<ContextInfo> {
    for (i, c) in list.iter_mut().enumerate() {
        c.tokens = Some(100 * (i as u64 + 1));
    }
    list
}

fn contexts_req(m: &Model) -> u64 {
    m.viewer()
        .unwrap()
        .contexts()
        .expect("the contexts are open")
        .waiting
}

fn listed_reply(m: &mut Model, counted: bool, list: Vec<ContextInfo>) -> Vec<Effect> {
    let req = contexts_req(m);
    let result = Ok(list);
    reply(m, req, ViewerReply::ContextsListed { counted, result })
}

/// The viewer on session a with its three contexts listed and counted.
fn contexts_open() -> Model {
    let mut m = viewing(3);
    act(&mut m, Action::Contexts);
    listed_reply(&mut m, false, three());
    listed_reply(&mut m, true, counted(three()));
    m
}

/// Delete pressed on the chosen context: the store is asked first; the tag
/// of that request.
fn delete_asked(m: &mut Model) -> u64 {
    only_store!(
        act(m, Action::DeleteContext),
        StoreOp::Viewer(ViewerOp::CheckDeleteContext { .. })
    )
}

/// The store's answer that context `id` may be deleted.
fn deletable(id: &str) -> ViewerReply {
    ViewerReply::DeleteContextChecked {
        context_id: id.into(),
        result: Ok(()),
    }
}

fn cursor(m: &Model) -> usize {
    m.viewer().unwrap().contexts().unwrap().cursor
}

#[test]
fn contexts_are_listed_then_counted_and_switching_back_is_the_undo() {
    let mut m = viewing(3);
    let req = only_store!(
        act(&mut m, Action::Contexts),
        StoreOp::Viewer(ViewerOp::ListContexts { encoding: None, .. })
    );
    assert_eq!(keymap::scope(&m), keymap::Scope::Contexts);
    assert!(m.viewer().unwrap().contexts().unwrap().list.is_none());
    // The tokens are asked for next.
    let counting = only_store!(
        listed_reply(&mut m, false, three()),
        StoreOp::Viewer(ViewerOp::ListContexts {
            encoding: Some(Encoding::Cl100kBase),
            ..
        })
    );
    assert!(counting > req);
    assert_eq!(cursor(&m), 1, "the cursor starts on the active context");
    let stale = reply(
        &mut m,
        req,
        ViewerReply::ContextsListed {
            counted: true,
            result: Ok(vec![]),
        },
    );
    assert!(stale.is_empty());
    assert_eq!(
        m.viewer()
            .unwrap()
            .contexts()
            .unwrap()
            .list
            .as_ref()
            .unwrap()
            .len(),
        3,
        "a late reply is dropped"
    );
    assert!(listed_reply(&mut m, true, counted(three())).is_empty());
    let view = m.viewer().unwrap().contexts().unwrap();
    assert!(view.counted);
    assert_eq!(view.chosen().unwrap().tokens, Some(200));

    act(&mut m, Action::Up);
    let (req, context_id) = only_store!(
        act(&mut m, Action::Confirm),
        StoreOp::Viewer(ViewerOp::SwitchContext { context_id, .. }) => context_id
    );
    assert_eq!(context_id, "root");
    let effects = reply(
        &mut m,
        req,
        ViewerReply::Switched {
            result: Ok("root".into()),
        },
    );
    only_store!(effects, StoreOp::Viewer(ViewerOp::LoadConversation { .. }));
    assert_eq!(m.viewer().unwrap().mode, ViewerMode::Browse);

    // Enter on the active context, or Esc, only closes the list.
    let mut m = contexts_open();
    assert!(act(&mut m, Action::Confirm).is_empty());
    assert_eq!(m.viewer().unwrap().mode, ViewerMode::Browse);
    act(&mut m, Action::Contexts);
    act(&mut m, Action::Back);
    assert_eq!(m.viewer().unwrap().mode, ViewerMode::Browse);
}

#[test]
fn a_failed_listing_is_shown_in_the_list() {
    let mut m = viewing(3);
    act(&mut m, Action::Contexts);
    let req = contexts_req(&m);
    let result = Err(UiError::new(
        ErrorKind::Damaged,
        "cannot parse session.json",
    ));
    reply(
        &mut m,
        req,
        ViewerReply::ContextsListed {
            counted: false,
            result,
        },
    );
    let view = m.viewer().unwrap().contexts().unwrap();
    assert_eq!(
        view.error,
        Some(UiError::new(
            ErrorKind::Damaged,
            "cannot parse session.json"
        ))
    );
    assert!(
        act(&mut m, Action::DeleteContext).is_empty(),
        "nothing to delete"
    );
}

#[test]
fn deleting_a_context_asks_the_store_then_the_person() {
    let mut m = contexts_open();
    act(&mut m, Action::Down);
    let Some(Msg::Action(delete)) = key(&m, KeyCode::Char('d')) else {
        panic!("d deletes")
    };
    let (req, context_id) = only_store!(
        act(&mut m, delete),
        StoreOp::Viewer(ViewerOp::CheckDeleteContext { context_id, .. }) => context_id
    );
    assert_eq!(context_id, "other");
    assert!(m.app.overlay.is_none(), "the store answers first");
    reply(&mut m, req, deletable("other"));
    let Some(Overlay::Confirm(question)) = &m.app.overlay else {
        panic!("{:?}", m.app.overlay)
    };
    assert_eq!(question.title, "Delete context other?");
    assert_eq!(
        question.action,
        ConfirmAction::DeleteContext { id: "other".into() }
    );
    assert!(
        question.lines[0].starts_with("4 messages, 300 tokens, made "),
        "{:?}",
        question.lines
    );
    assert_eq!(question.lines[1], "forked from root");
    assert_eq!(keymap::scope(&m), keymap::Scope::Confirm);

    // No (the default) deletes nothing.
    assert!(act(&mut m, Action::No).is_empty());
    assert!(m.app.overlay.is_none());
    assert!(matches!(m.viewer().unwrap().mode, ViewerMode::Contexts(_)));

    // Yes: the router hands the answer to the viewer, which asks the store.
    let req = delete_asked(&mut m);
    reply(&mut m, req, deletable("other"));
    let (req, context_id) = only_store!(
        act(&mut m, Action::Yes),
        StoreOp::Viewer(ViewerOp::DeleteContext { context_id, .. }) => context_id
    );
    assert_eq!(context_id, "other");
    let deleted = DeletedContext {
        id: "other".into(),
        parent: Some("root".into()),
        messages: 1,
    };
    let effects = reply(
        &mut m,
        req,
        ViewerReply::ContextDeleted {
            result: Ok(deleted),
        },
    );
    let status = m.app.status.clone().unwrap();
    assert_eq!(status.text, "deleted context other: 1 message");
    assert!(!status.is_error);
    only_store!(
        effects,
        StoreOp::Viewer(ViewerOp::ListContexts { encoding: None, .. })
    );
    // The list comes back without it: the cursor stays in place, the
    // counts already known stay until the new ones come.
    listed_reply(&mut m, false, three()[..2].to_vec());
    let view = m.viewer().unwrap().contexts().unwrap();
    assert_eq!(view.cursor, 1);
    assert_eq!(view.chosen().unwrap().tokens, Some(200));
    assert!(!view.counted);
}

#[test]
fn a_refused_delete_says_why_and_asks_nothing() {
    let mut m = contexts_open();
    assert_eq!(cursor(&m), 1, "on the active context");
    let req = delete_asked(&mut m);
    let refusal = UiError::new(
        ErrorKind::Refused,
        "ctx is the active context; make another one active first",
    );
    let context_id = "ctx".into();
    reply(
        &mut m,
        req,
        ViewerReply::DeleteContextChecked {
            context_id,
            result: Err(refusal),
        },
    );
    assert!(m.app.overlay.is_none());
    let status = m.app.status.clone().unwrap();
    assert!(status.is_error);
    assert_eq!(
        status.text,
        "not deleted: ctx is the active context; make another one active first"
    );

    // Refused under the lock (the session changed since the question).
    act(&mut m, Action::Down);
    let req = delete_asked(&mut m);
    reply(&mut m, req, deletable("other"));
    let req = only_store!(
        act(&mut m, Action::Yes),
        StoreOp::Viewer(ViewerOp::DeleteContext { .. })
    );
    let refusal = UiError::new(
        ErrorKind::Refused,
        "other has forks of its own (x); delete those first",
    );
    let effects = reply(
        &mut m,
        req,
        ViewerReply::ContextDeleted {
            result: Err(refusal),
        },
    );
    assert!(m.app.status.as_ref().unwrap().is_error);
    only_store!(effects, StoreOp::Viewer(ViewerOp::ListContexts { .. })); // listed again

    // An answer that comes after the list was closed asks nothing.
    let req = delete_asked(&mut m);
    act(&mut m, Action::Back);
    reply(&mut m, req, deletable("other"));
    assert!(m.app.overlay.is_none());
}

#[test]
fn another_agents_subagent_chosen_in_the_contexts_opens_read_only() {
    let mut m = viewing(3);
    if let Screen::Viewer(v) = &mut m.screen {
        v.record.agent = crate::store::Agent::Claude;
    }
    act(&mut m, Action::Contexts);
    listed_reply(&mut m, false, three());
    act(&mut m, Action::Down);
    assert_eq!(cursor(&m), 2);
    // Not made active (another agent's files never are): read in its place.
    let (_, id) = only_store!(
        act(&mut m, Action::Confirm),
        StoreOp::Viewer(ViewerOp::LoadConversation { context: Some(id), .. }) => id
    );
    assert_eq!(id, "other");
    let viewer = m.viewer().unwrap();
    assert_eq!(viewer.side.as_deref(), Some("other"));
    assert!(matches!(viewer.mode, ViewerMode::Browse));
}
