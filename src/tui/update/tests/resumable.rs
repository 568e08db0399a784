//! Transitions of "make it resumable" in the viewer: R plans on counts
//! asked once per size, the arrows and Tab change the size and the turns
//! kept (no count asked again for the turns), Enter asks the store to lay
//! the fork out and then asks with its bytes, yes writes, no writes nothing.

use super::edit::{COUNTS, editing};
use super::*;
use crate::store::{Change, ClearedCounts, RESULTS_OVER, ResumableFix};
use crate::tui::model::{EditKind, Overlay, ResumableBy};
use crate::tui::ops::EditPreview;

fn counted(m: &mut Model, req: u64, results_over: u64, after: &[(usize, u64)]) -> Vec<Effect> {
    let mut counts = ClearedCounts::new(COUNTS.len());
    for &(i, n) in after {
        counts.set(i, n);
    }
    let counted = ViewerReply::ReplacedCounted {
        encoding: Encoding::Cl100kBase,
        results_over,
        result: Ok(counts),
    };
    reply(m, req, counted)
}

/// The one effect of `effects`, a count of the results over a size: its
/// tag and that size.
fn asked_size(effects: Vec<Effect>) -> (u64, u64) {
    only_store!(
        effects,
        StoreOp::Viewer(ViewerOp::CountReplaced { results_over, .. }) => results_over
    )
}

#[test]
fn r_plans_the_fix_and_the_numbers_change_it() {
    let mut m = editing();
    let (req, over) = asked_size(act(&mut m, Action::StartResumable));
    assert_eq!(over, RESULTS_OVER);
    let e = m.viewer().unwrap().edit().unwrap();
    assert_eq!(e.kind, EditKind::Resumable);
    assert!(e.plan.is_none(), "counting first");
    // No result is over 10,000 tokens and there is no media: nothing to do.
    counted(&mut m, req, over, &[]);
    let plan = m.viewer().unwrap().edit().unwrap().plan.clone().unwrap();
    assert!(!plan.changed);
    assert!(act(&mut m, Action::Confirm).is_empty());
    assert!(
        m.app
            .status
            .as_ref()
            .unwrap()
            .text
            .contains("nothing to do")
    );
    // Results over 40 tokens: both results (200 and 50 tokens).
    update(&mut m, Msg::Paste("40".into()));
    let e = m.viewer().unwrap().edit().unwrap();
    assert_eq!(e.results_over, 40);
    let (req, over) = match m.viewer().unwrap().pending.replaced {
        Some((req, _, over)) => (req, over),
        None => panic!("the new size is counted"),
    };
    assert_eq!(over, 40);
    counted(&mut m, req, 40, &[(3, 12), (7, 12)]);
    let plan = m.viewer().unwrap().edit().unwrap().plan.clone().unwrap();
    assert_eq!(
        plan.cleared.iter().map(|c| c.index).collect::<Vec<_>>(),
        vec![3, 7]
    );
    assert_eq!(plan.tokens_after, 310 - 200 - 50 + 24);
    // Tab: the arrows change the turns kept now; the last turn only drops
    // the first turn's messages, with no count asked again.
    act(&mut m, Action::CycleClearChoice);
    assert_eq!(
        m.viewer().unwrap().edit().unwrap().resumable_by,
        ResumableBy::KeepTurns
    );
    let effects = act(&mut m, Action::Up);
    assert!(effects.is_empty(), "turns need no count: {effects:?}");
    let e = m.viewer().unwrap().edit().unwrap();
    assert_eq!(e.keep_turns, 1);
    let plan = e.plan.clone().unwrap();
    assert_eq!(plan.dropped, vec![1, 2, 3, 4]);
    assert_eq!(
        plan.cleared.iter().map(|c| c.index).collect::<Vec<_>>(),
        vec![7]
    );
    assert_eq!(
        e.request(
            m.viewer()
                .unwrap()
                .loaded
                .as_ref()
                .unwrap()
                .facts
                .as_ref()
                .unwrap()
        ),
        Change::Resumable(ResumableFix {
            results_over: 40,
            keep_turns: Some(1)
        })
    );
}

#[test]
fn enter_lays_the_fork_out_then_asks_with_its_bytes() {
    let mut m = editing();
    let (req, over) = asked_size(act(&mut m, Action::StartResumable));
    counted(&mut m, req, over, &[]);
    update(&mut m, Msg::Paste("40".into()));
    let (req, _, _) = m.viewer().unwrap().pending.replaced.unwrap();
    counted(&mut m, req, 40, &[(3, 12), (7, 12)]);
    let (req, request) = only_store!(
        act(&mut m, Action::Confirm),
        StoreOp::Viewer(ViewerOp::PreviewEdit { request, .. }) => request
    );
    assert!(matches!(request, Change::Resumable(_)));
    assert!(m.viewer().unwrap().edit().unwrap().measuring);
    assert!(
        act(&mut m, Action::Up).is_empty(),
        "keys wait for the store"
    );
    let preview = EditPreview {
        changed: true,
        dropped: 0,
        results: 2,
        media: 0,
        tokens: (310, 84),
        bytes: Some((4_096, 1_024)),
        new_session: false,
    };
    let previewed = ViewerReply::EditPreviewed {
        result: Ok(preview.clone()),
    };
    reply(&mut m, req, previewed);
    let Some(Overlay::Confirm(confirm)) = &m.app.overlay else {
        panic!("a question")
    };
    assert_eq!(confirm.action, ConfirmAction::Resumable);
    let text = confirm.lines.join("\n");
    assert!(text.contains("4.0 KiB → 1.0 KiB"), "{text}");
    assert!(text.contains("310 → 84"), "{text}");
    // No (the default) writes nothing; yes writes.
    let no = key(&m, KeyCode::Enter).unwrap();
    assert!(update(&mut m, no).is_empty());
    assert!(m.app.overlay.is_none());
    let req = only_store!(act(&mut m, Action::Confirm), _);
    let previewed = ViewerReply::EditPreviewed {
        result: Ok(preview),
    };
    reply(&mut m, req, previewed);
    let yes = key(&m, KeyCode::Char('y')).unwrap();
    let (_, request) = only_store!(
        update(&mut m, yes),
        StoreOp::Viewer(ViewerOp::ApplyEdit { request, .. }) => request
    );
    assert_eq!(
        request,
        Change::Resumable(ResumableFix {
            results_over: 40,
            keep_turns: None
        })
    );
}
