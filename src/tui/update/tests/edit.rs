//! Transitions of edits by hand in the viewer: marks, ranges, tool pairs,
//! special messages refused, drop and clear, what Enter sends, Esc, an
//! agent's session, and late replies.

use super::*;
use crate::store::{Change, ClearChoice, ClearedCounts};
use crate::tui::model::{ClearBy, EditKind, EditState, Overlay};
use crate::tui::ops::EditDone;

/// 0 system prompt, 1 user, 2 call k1, 3 its result, 4 assistant, 5 user,
/// 6 call k2, 7 its result, 8 assistant.
pub(super) fn tools_context() -> Context {
    let text = |id: &str, role: &str, seq: usize, text: &str| {
        json!({"id": id, "role": role, "_sequence_number": seq,
               "content": [{"type": "text", "text": text}]})
    };
    let call = |id: &str, seq: usize, call: &str| {
        json!({"id": id, "role": "assistant", "_sequence_number": seq, "content": [
            {"type": "tool_use", "call_id": call, "name": "bash", "arguments": "{}"}]})
    };
    let result = |id: &str, seq: usize, call: &str| {
        json!({"id": id, "role": "tool", "_sequence_number": seq, "content": [
            {"type": "tool_result", "call_id": call, "content": "a long log ".repeat(40)}]})
    };
    let messages = vec![
        json!({"id": "sys", "_type": "SystemPromptMessage", "role": "system", "_sequence_number": 3,
               "content": [{"type": "text", "text": "be careful"}]}),
        text("u1", "user", 4, "fix it"),
        call("c1", 5, "k1"),
        result("r1", 6, "k1"),
        text("a1", "assistant", 7, "found it"),
        text("u2", "user", 8, "next"),
        call("c2", 9, "k2"),
        result("r2", 10, "k2"),
        text("a2", "assistant", 11, "done"),
    ];
    let v = json!({"id": "ctx", "messages": messages, "_mutation_counter": 21,
        "anchor_points": [["system_prompt", 1], ["tools", 1], ["messages", 9]],
        "system_prompt_message_id": "sys"});
    Context::from_raw(
        v.as_object().unwrap().clone(),
        Path::new("/s/a/memory/ctx.json"),
    )
    .unwrap()
}

/// The counts [`editing`] gives the messages of [`tools_context`].
pub(super) const COUNTS: [u64; 9] = [5, 3, 10, 200, 20, 4, 10, 50, 8];

/// The viewer on [`tools_context`], every message counted ([`COUNTS`]).
pub(super) fn editing_with(agent_owned: bool) -> Model {
    let (mut m, _) = opened_with(tools_context(), agent_owned);
    let req = viewer_req(&m);
    reply(&mut m, req, tokens_counted(0, COUNTS.to_vec()));
    m
}

pub(super) fn editing() -> Model {
    editing_with(false)
}

fn select(m: &mut Model, index: usize) {
    viewer_mut(m).selected = index;
}

fn edit(m: &Model) -> &EditState {
    m.viewer().unwrap().edit().expect("an edit is on screen")
}

/// The worker's cl100k counts of the two tool results cleared: 12 tokens
/// each.
fn results_cleared() -> ViewerReply {
    let mut cleared = ClearedCounts::new(9);
    cleared.set(3, 12);
    cleared.set(7, 12);
    ViewerReply::ClearedCounted {
        encoding: Encoding::Cl100kBase,
        result: Ok(cleared),
    }
}

fn status(m: &Model) -> (String, bool) {
    let s = m.app.status.as_ref().expect("a status");
    (s.text.clone(), s.is_error)
}

#[test]
fn space_marks_moves_down_and_plans_the_pair() {
    let mut m = editing();
    select(&mut m, 2);
    let effects = act(&mut m, Action::Mark);
    assert!(effects.is_empty(), "a drop needs nothing more: {effects:?}");
    let e = edit(&m);
    assert_eq!(e.kind, EditKind::Drop);
    assert_eq!(e.drop_marks.iter().copied().collect::<Vec<_>>(), vec![2]);
    assert_eq!(m.viewer().unwrap().selected, 3, "Space moves down");
    let plan = e.plan.as_ref().expect("planned at once");
    assert_eq!(plan.dropped, vec![2, 3], "the call's result goes with it");
    assert_eq!(plan.partners.len(), 1);
    assert_eq!(
        (plan.partners[0].index, plan.partners[0].partner_of),
        (3, 2)
    );
    assert_eq!(plan.tokens_before, COUNTS.iter().sum::<u64>());
    assert_eq!(plan.tokens_after, plan.tokens_before - 10 - 200);
    // Space on the call again unmarks it: nothing is dropped.
    select(&mut m, 2);
    act(&mut m, Action::Mark);
    let e = edit(&m);
    assert!(e.drop_marks.is_empty());
    assert!(e.plan.as_ref().unwrap().dropped.is_empty());
    assert_eq!(e.plan.as_ref().unwrap().tokens_after, 310);
}

#[test]
fn a_range_marks_from_the_last_mark_and_leaves_specials_out() {
    let mut m = editing();
    select(&mut m, 4);
    act(&mut m, Action::Mark);
    select(&mut m, 0);
    act(&mut m, Action::MarkRange);
    let e = edit(&m);
    assert_eq!(
        e.drop_marks.iter().copied().collect::<Vec<_>>(),
        vec![1, 2, 3, 4],
        "0 is the system prompt: left out"
    );
    let (text, _) = status(&m);
    assert!(text.contains("marked 3 messages more"), "{text}");
    assert!(text.contains("the system prompt"), "{text}");
    let plan = e.plan.as_ref().unwrap();
    assert_eq!(plan.tokens_after, 5 + 4 + 10 + 50 + 8);
    // The next range runs from the cursor where the last one ended.
    select(&mut m, 6);
    act(&mut m, Action::MarkRange);
    assert_eq!(
        edit(&m).drop_marks.iter().copied().collect::<Vec<_>>(),
        vec![1, 2, 3, 4, 5, 6]
    );
    assert_eq!(edit(&m).plan.as_ref().unwrap().partners[0].index, 7);
}

#[test]
fn the_system_prompt_is_refused_with_a_clear_status() {
    let mut m = editing();
    select(&mut m, 0);
    act(&mut m, Action::Mark);
    let (text, is_error) = status(&m);
    assert!(is_error);
    assert!(text.contains("system prompt"), "{text}");
    assert!(text.contains("cannot be dropped"), "{text}");
    assert!(edit(&m).drop_marks.is_empty());
    assert_eq!(
        m.viewer().unwrap().selected,
        0,
        "a refused mark does not move"
    );
}

#[test]
fn drop_and_clear_keep_their_own_marks_and_clears_count_once() {
    let mut m = editing();
    select(&mut m, 2);
    act(&mut m, Action::Mark);
    // The cleared counts are asked for.
    let (req, counts) = only_store!(
        act(&mut m, Action::StartClear),
        StoreOp::Viewer(ViewerOp::CountCleared {
            counts,
            encoding: Encoding::Cl100kBase,
            ..
        }) => counts
    );
    assert_eq!(counts, COUNTS.to_vec());
    assert_eq!(edit(&m).kind, EditKind::Clear);
    assert!(
        edit(&m).clear_marks.is_empty(),
        "the drop's marks stay the drop's"
    );
    assert!(edit(&m).plan.is_none(), "waiting for the cleared counts");
    // A call holds no tool result: it cannot be marked to clear.
    select(&mut m, 2);
    let effects = act(&mut m, Action::Mark);
    assert!(effects.is_empty(), "asked once: {effects:?}");
    let (text, is_error) = status(&m);
    assert!(is_error && text.contains("holds no tool result"), "{text}");
    select(&mut m, 3);
    act(&mut m, Action::Mark);
    reply(&mut m, req, results_cleared());
    let plan = edit(&m)
        .plan
        .clone()
        .expect("planned with the cleared counts");
    assert_eq!(plan.cleared.len(), 1);
    assert_eq!(
        (plan.cleared[0].index, plan.cleared[0].tokens_after),
        (3, 12)
    );
    assert_eq!(plan.tokens_after, 310 - 200 + 12);
    assert!(plan.dropped.is_empty(), "a clear keeps every message");
    // Every result over 40 tokens: both results.
    act(&mut m, Action::CycleClearChoice);
    assert_eq!(edit(&m).clear_by, ClearBy::Over);
    update(&mut m, Msg::Type('4'));
    update(&mut m, Msg::Type('0'));
    assert_eq!(edit(&m).over, 40);
    assert_eq!(edit(&m).plan.as_ref().unwrap().cleared.len(), 2);
    // ↑ raises the size by a thousand: none is over it.
    act(&mut m, Action::Up);
    assert_eq!(edit(&m).over, 1040);
    assert!(!edit(&m).plan.as_ref().unwrap().changed);
    assert_eq!(
        m.viewer().unwrap().selected,
        4,
        "↑ set the number, not the row"
    );
    // Older than the last turn: the result before the last user message.
    act(&mut m, Action::CycleClearChoice);
    act(&mut m, Action::Backspace);
    update(&mut m, Msg::Paste("1".into()));
    assert_eq!(edit(&m).clear_by, ClearBy::OlderThanTurns);
    let plan = edit(&m).plan.clone().unwrap();
    assert_eq!(
        plan.cleared.iter().map(|c| c.index).collect::<Vec<_>>(),
        vec![3]
    );
    // Back to dropping: its mark is still there.
    act(&mut m, Action::StartDrop);
    assert_eq!(edit(&m).plan.as_ref().unwrap().dropped, vec![2, 3]);
}

#[test]
fn enter_sends_the_marks_with_what_the_plan_was_made_on() {
    let mut m = editing();
    select(&mut m, 6);
    act(&mut m, Action::Mark);
    let (req, (request, expected)) = only_store!(
        act(&mut m, Action::Confirm),
        StoreOp::Viewer(ViewerOp::ApplyEdit {
            request,
            expected,
            encoding: Encoding::Cl100kBase,
            ..
        }) => (request, expected)
    );
    assert_eq!(
        request,
        Change::Drop {
            messages: vec!["c2".into()],
            with_pairs: true
        }
    );
    assert_eq!(
        (expected.context_id.as_str(), expected.mutation_counter),
        ("ctx", 21)
    );
    assert!(edit(&m).applying);
    assert!(
        act(&mut m, Action::Mark).is_empty(),
        "keys wait for the store"
    );
    let done = EditDone {
        child: Some("20261129-3f0c2a9e-child".into()),
        dropped: 2,
        cleared: 0,
        media: 0,
        tokens_before: 310,
        tokens_after: 250,
        new_session: false,
    };
    only_store!(
        reply(&mut m, req, ViewerReply::Edited { result: Ok(done) }),
        StoreOp::Viewer(ViewerOp::LoadConversation { .. })
    );
    let (text, is_error) = status(&m);
    assert!(!is_error);
    assert_eq!(
        text,
        "dropped 2 messages (310 → 250 tokens), new fork; c switches back"
    );
    assert!(m.viewer().unwrap().edit().is_none());
}

#[test]
fn a_clear_by_size_is_sent_as_such_and_a_refusal_keeps_the_edit() {
    let mut m = editing();
    let req = only_store!(
        act(&mut m, Action::StartClear),
        StoreOp::Viewer(ViewerOp::CountCleared { .. })
    );
    reply(&mut m, req, results_cleared());
    act(&mut m, Action::CycleClearChoice);
    update(&mut m, Msg::Paste("100".into()));
    let (req, request) = only_store!(
        act(&mut m, Action::Confirm),
        StoreOp::Viewer(ViewerOp::ApplyEdit { request, .. }) => request
    );
    assert_eq!(request, Change::Clear(ClearChoice::Over(100)));
    let refusal = UiError::new(ErrorKind::Refused, "the context changed since the preview");
    reply(
        &mut m,
        req,
        ViewerReply::Edited {
            result: Err(refusal),
        },
    );
    assert!(status(&m).1);
    assert!(!edit(&m).applying, "the edit stays, to try again");
}

#[test]
fn esc_changes_nothing_and_enter_with_nothing_marked_writes_nothing() {
    let mut m = editing();
    select(&mut m, 4);
    act(&mut m, Action::Mark);
    select(&mut m, 4);
    act(&mut m, Action::Mark);
    assert!(act(&mut m, Action::Confirm).is_empty(), "nothing marked");
    assert!(status(&m).0.contains("nothing to drop"));
    act(&mut m, Action::Mark);
    let effects = act(&mut m, Action::Back);
    assert!(effects.is_empty());
    assert!(matches!(m.viewer().unwrap().mode, ViewerMode::Browse));
    assert!(status(&m).0.contains("nothing was written"));
}

#[test]
fn an_agents_session_asks_first() {
    let mut m = editing_with(true);
    select(&mut m, 4);
    act(&mut m, Action::Mark);
    assert!(act(&mut m, Action::Confirm).is_empty());
    let Some(Overlay::Confirm(confirm)) = &m.app.overlay else {
        panic!("a question")
    };
    assert_eq!(confirm.action, ConfirmAction::EditAgentOwned);
    // No (the default) writes nothing; yes applies.
    let no = key(&m, KeyCode::Enter).unwrap();
    update(&mut m, no);
    assert!(m.app.overlay.is_none());
    assert!(!edit(&m).applying);
    act(&mut m, Action::Confirm);
    let yes = key(&m, KeyCode::Char('y')).unwrap();
    only_store!(
        update(&mut m, yes),
        StoreOp::Viewer(ViewerOp::ApplyEdit { .. })
    );
}

#[test]
fn late_replies_are_dropped() {
    let mut m = editing();
    let req = only_store!(
        act(&mut m, Action::StartClear),
        StoreOp::Viewer(ViewerOp::CountCleared { .. })
    );
    // Cleared counts of another request, or another encoding.
    for (r, encoding) in [(req - 1, Encoding::Cl100kBase), (req, Encoding::O200kBase)] {
        let result = Ok(ClearedCounts::new(9));
        reply(&mut m, r, ViewerReply::ClearedCounted { encoding, result });
    }
    assert!(m.viewer().unwrap().cleared.is_empty());
    // An edit's answer to an older request.
    act(&mut m, Action::StartDrop);
    select(&mut m, 4);
    act(&mut m, Action::Mark);
    let stale = viewer_req(&m) - 1;
    let done = EditDone {
        media: 0,
        child: Some("x".into()),
        dropped: 1,
        cleared: 0,
        tokens_before: 1,
        tokens_after: 0,
        new_session: false,
    };
    assert!(reply(&mut m, stale, ViewerReply::Edited { result: Ok(done) }).is_empty());
    assert!(m.viewer().unwrap().edit().is_some(), "still editing");
    // Edit facts read for a load since replaced.
    let facts = Arc::new(EditFacts::new(&context(2)));
    reply(&mut m, stale, ViewerReply::EditFactsRead { facts });
    let loaded = m.viewer().unwrap().loaded.as_ref().unwrap();
    assert_eq!(
        loaded.facts.as_ref().unwrap().len(),
        9,
        "the right facts stay"
    );
}

#[test]
fn keys_of_the_edit_scope_digits_and_text_fields() {
    let mut m = editing();
    assert!(matches!(
        key(&m, KeyCode::Char(' ')),
        Some(Msg::Action(Action::Mark))
    ));
    act(&mut m, Action::StartClear);
    assert_eq!(keymap::scope(&m), keymap::Scope::Edit);
    assert!(matches!(key(&m, KeyCode::Char('7')), Some(Msg::Type('7'))));
    assert!(matches!(
        key(&m, KeyCode::Char('d')),
        Some(Msg::Action(Action::StartDrop))
    ));
    assert!(matches!(
        key(&m, KeyCode::Char('C')),
        Some(Msg::Action(Action::StartClear))
    ));
    assert!(
        key(&m, KeyCode::Char('c')).is_none(),
        "c opens the contexts in the viewer: it means nothing else here"
    );
    assert!(key(&m, KeyCode::Char('z')).is_none());
    // In the size field the same keys are text.
    act(&mut m, Action::SetBigSize);
    assert_eq!(keymap::scope(&m), keymap::Scope::Input);
    assert!(matches!(key(&m, KeyCode::Char(' ')), Some(Msg::Type(' '))));
    assert!(matches!(key(&m, KeyCode::Char('c')), Some(Msg::Type('c'))));
}

#[test]
fn a_new_panel_clears_what_the_status_said_of_the_last() {
    let mut m = editing();
    select(&mut m, 2);
    act(&mut m, Action::Mark);
    act(&mut m, Action::Back);
    assert_eq!(status(&m).0, "edit cancelled: nothing was written");
    act(&mut m, Action::Mark);
    assert!(m.viewer().unwrap().edit().is_some());
    assert!(m.app.status.is_none(), "{:?}", m.app.status);
}
