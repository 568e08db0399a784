//! Transitions of the viewer and its trims.

use super::*;

#[test]
fn viewer_counts_arrive_live_and_encoding_toggles_with_a_cache() {
    let (mut m, _) = opened(3);
    let req = viewer_req(&m);
    reply(&mut m, req, tokens_counted(2, vec![7, 8]));
    let v = m.viewer().unwrap();
    assert_eq!(
        v.counts[&Encoding::Cl100kBase],
        vec![None, None, Some(7), Some(8)]
    );
    assert_eq!(v.selected, 3, "opens at the newest message");
    reply(&mut m, req - 1, tokens_counted(0, vec![1, 1]));
    assert_eq!(
        m.viewer().unwrap().counts[&Encoding::Cl100kBase][0],
        None,
        "stale"
    );
    only_store!(
        act(&mut m, Action::ToggleEncoding),
        StoreOp::Viewer(ViewerOp::CountTokens {
            encoding: Encoding::O200kBase,
            ..
        })
    );
    let effects = act(&mut m, Action::ToggleEncoding);
    assert!(effects.is_empty(), "cl100k counts are cached");
    act(&mut m, Action::Up);
    assert_eq!(m.viewer().unwrap().selected, 2);
    act(&mut m, Action::DetailDown);
    assert_eq!(m.viewer().unwrap().detail_scroll, 3);
    let effects = act(&mut m, Action::Back);
    assert!(matches!(m.screen, Screen::List));
    assert!(m.viewer().is_none());
    assert!(!asks!(
        &effects,
        StoreOp::Viewer(ViewerOp::LoadConversation { .. })
    ));
}

#[test]
fn a_failed_load_is_shown() {
    let mut m = listed(true);
    act(&mut m, Action::Open);
    let req = viewer_req(&m);
    let failed = Err(UiError::new(ErrorKind::Damaged, "cannot parse x.json"));
    reply(
        &mut m,
        req,
        ViewerReply::ConversationLoaded { result: failed },
    );
    assert_eq!(
        m.viewer().unwrap().error,
        Some(UiError::new(ErrorKind::Damaged, "cannot parse x.json"))
    );
}

#[test]
fn trim_keep_last_previews_adjusts_and_applies() {
    let mut m = viewing(30);
    act(&mut m, Action::TrimKeepLast);
    let trim = m.viewer().unwrap().trim().cloned().unwrap();
    assert_eq!((trim.kind, trim.value), (TrimKind::KeepLast, 20));
    let plan = trim.plan.unwrap();
    assert_eq!(plan.kept.len(), 21, "20 + the system prompt");
    assert_eq!(plan.tokens_after, 210);
    act(&mut m, Action::Less);
    assert_eq!(
        m.viewer()
            .unwrap()
            .trim()
            .unwrap()
            .plan
            .as_ref()
            .unwrap()
            .kept
            .len(),
        20
    );
    update(&mut m, Msg::Type('5'));
    let trim = m.viewer().unwrap().trim().cloned().unwrap();
    assert_eq!(trim.value, 5);
    assert_eq!(trim.plan.as_ref().unwrap().dropped.len(), 25);
    act(&mut m, Action::Backspace);
    assert_eq!(m.viewer().unwrap().trim().unwrap().value, 0);
    update(&mut m, Msg::Type('6'));
    let (req, (request, expected)) = only_store!(
        act(&mut m, Action::Confirm),
        StoreOp::Viewer(ViewerOp::ApplyTrim { request, expected, .. }) => (request, expected)
    );
    assert_eq!(request, Window::KeepMessages(6));
    assert_eq!(
        (expected.context_id.as_str(), expected.mutation_counter),
        ("ctx", 34)
    );
    assert!(m.viewer().unwrap().trim().unwrap().applying);
    assert!(
        act(&mut m, Action::More).is_empty(),
        "ignored while applying"
    );
    let trimmed = ViewerReply::Trimmed {
        result: Ok(Some("child".into())),
    };
    only_store!(
        reply(&mut m, req, trimmed),
        StoreOp::Viewer(ViewerOp::LoadConversation { .. })
    );
    assert!(m.viewer().unwrap().trim().is_none());
}

#[test]
fn trim_budget_cancel_and_refusal() {
    let mut m = viewing(30);
    act(&mut m, Action::TrimBudget);
    let trim = m.viewer().unwrap().trim().cloned().unwrap();
    assert_eq!(trim.kind, TrimKind::Budget);
    assert_eq!(trim.value, 232, "three quarters of 310 tokens");
    assert!(trim.plan.as_ref().unwrap().tokens_after <= 232);
    act(&mut m, Action::More);
    assert_eq!(
        m.viewer().unwrap().trim().unwrap().value,
        242,
        "a step of about a twentieth of 310 tokens"
    );
    for _ in 0..7 {
        act(&mut m, Action::More);
    }
    assert_eq!(m.viewer().unwrap().trim().unwrap().value, 312);
    assert!(
        !m.viewer()
            .unwrap()
            .trim()
            .unwrap()
            .plan
            .as_ref()
            .unwrap()
            .changed
    );
    assert!(act(&mut m, Action::Confirm).is_empty(), "nothing to trim");
    act(&mut m, Action::Back);
    assert!(
        m.viewer().unwrap().trim().is_none(),
        "Esc cancels, nothing written"
    );
    // A refusal from the store (the session changed) is shown and the trim stays.
    act(&mut m, Action::TrimKeepLast);
    let req = only_store!(
        act(&mut m, Action::Confirm),
        StoreOp::Viewer(ViewerOp::ApplyTrim { .. })
    );
    let refusal = UiError::new(ErrorKind::Refused, "changed since the preview");
    reply(
        &mut m,
        req,
        ViewerReply::Trimmed {
            result: Err(refusal),
        },
    );
    assert!(m.app.status.as_ref().unwrap().is_error);
    assert!(!m.viewer().unwrap().trim().unwrap().applying);
}

#[test]
fn trim_waits_for_counts() {
    let (mut m, _) = opened(5);
    act(&mut m, Action::TrimKeepLast);
    assert!(m.viewer().unwrap().trim().unwrap().plan.is_none());
    assert!(act(&mut m, Action::Confirm).is_empty());
    let req = viewer_req(&m);
    reply(&mut m, req, tokens_counted(0, vec![1; 6]));
    assert!(
        m.viewer().unwrap().trim().unwrap().plan.is_some(),
        "planned when counts complete"
    );
}

#[test]
fn o_pages_the_transcript_and_shift_o_edits_the_file_through_the_runtime() {
    use crate::tui::model::External;
    let mut m = viewing(4);
    assert!(act(&mut m, Action::OpenInPager).is_empty(), "no store work");
    let Some((
        first,
        External::Pager {
            context, counts, ..
        },
    )) = m.app.external.clone()
    else {
        panic!("{:?}", m.app.external)
    };
    assert_eq!(counts.len(), context.len(), "a count for each message");
    act(&mut m, Action::ToggleTranscript);
    act(&mut m, Action::OpenInEditor);
    let Some((second, External::Editor { path })) = m.app.external.clone() else {
        panic!("{:?}", m.app.external)
    };
    assert!(second > first, "each request runs once");
    let loaded = m.viewer().unwrap().loaded.as_ref().unwrap();
    let expected = if loaded.context.path().is_file() {
        loaded.context.path().to_path_buf()
    } else {
        m.viewer().unwrap().record.path.clone()
    };
    assert_eq!(path, expected);
    // What the program's end says is shown.
    update(&mut m, Msg::Ran(Err("vi ended with exit status: 1".into())));
    assert!(m.app.status.as_ref().unwrap().is_error);
}
