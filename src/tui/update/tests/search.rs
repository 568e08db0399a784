//! Transitions of the message search and of what the search index gives the
//! list (progress, stats for every row, sorting).

use super::*;
use crate::store::{Hit, IndexedStats, SearchOutcome, UpdateReport};
use crate::tui::model::{IndexState, ListMode, SortKey};
use std::collections::HashMap;

fn hit(session: &str, message: &str) -> Hit {
    Hit {
        agent: Default::default(),
        session_id: session.into(),
        session_name: format!("name-{session}"),
        context_id: "ctx".into(),
        message_id: message.into(),
        role: "user".into(),
        sequence: Some(4),
        snippet: "the token expired".into(),
        highlights: vec![(4, 9)],
        score: 1.0,
        last_used_at: NOW,
    }
}

/// The list searching messages for "token", answered with hits in b and a.
fn searching() -> Model {
    let mut m = listed(true);
    let effects = act(&mut m, Action::ToggleSearchMode);
    assert!(
        effects
            .iter()
            .all(|e| !matches!(e, Effect::Search(SearchJob { .. }))),
        "no query yet"
    );
    assert_eq!(m.list.mode, ListMode::Messages);
    assert_eq!(keymap::scope(&m), keymap::Scope::Messages);
    let mut req = 0;
    for c in "token".chars() {
        let effects = update(&mut m, Msg::Type(c));
        let [
            Effect::Search(SearchJob {
                req: r,
                query,
                sessions,
            }),
        ] = &effects[..]
        else {
            panic!("{effects:?}")
        };
        assert_eq!(*sessions, 3);
        assert!("token".starts_with(query.as_str()));
        req = *r;
    }
    // A late answer to an older query is dropped.
    update(
        &mut m,
        Msg::reply(
            req - 1,
            ListReply::MessageHits {
                query: "toke".into(),
                result: Ok(SearchOutcome::default()),
            },
        ),
    );
    assert!(!m.list.hits.answered);
    let outcome = SearchOutcome {
        hits: vec![hit("b", "m2"), hit("a", "m1")],
        total: 2,
        covered: 2,
        sessions: 3,
        note: None,
        ..SearchOutcome::default()
    };
    let effects = update(
        &mut m,
        Msg::reply(
            req,
            ListReply::MessageHits {
                query: "token".into(),
                result: Ok(outcome),
            },
        ),
    );
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::Store { op: StoreOp::List(ListOp::LoadPreview { record, .. }), .. } if record.id == "b")),
        "the preview follows the selected hit: {effects:?}"
    );
    m
}

#[test]
fn message_hits_are_rows_enter_resumes_and_tab_opens_at_the_message() {
    let mut m = searching();
    assert_eq!(m.list.hits.hits.len(), 2);
    act(&mut m, Action::Down);
    assert_eq!(m.list.selected_hit().unwrap().session_id, "a");
    let effects = act(&mut m, Action::Resume);
    assert!(
        matches!(&effects[..], [Effect::Store { op: StoreOp::List(ListOp::Resume { record, .. }), .. }] if record.id == "a")
    );
    let effects = act(&mut m, Action::Open);
    let Some(viewer) = m.viewer() else {
        panic!("the viewer opened")
    };
    assert_eq!(viewer.goto, Some(("m1".to_string(), "token".to_string())));
    let [
        Effect::Store {
            req,
            op: StoreOp::Viewer(ViewerOp::LoadConversation { record }),
        },
    ] = &effects[..]
    else {
        panic!("{effects:?}")
    };
    assert_eq!(record.id, "a");
    let ctx = context(5);
    let loaded = Loaded {
        facts: None,
        context: Arc::new(ctx),
        agent_owned: false,
        usage: None,
        notes: Vec::new(),
        recorded: None,
    };
    update(
        &mut m,
        Msg::reply(*req, ViewerReply::ConversationLoaded { result: Ok(loaded) }),
    );
    let viewer = m.viewer().unwrap();
    assert_eq!(
        viewer.selected, 2,
        "message m1 is at index 2, after the system prompt"
    );
    assert_eq!(viewer.find.as_deref(), Some("token"));
}

#[test]
fn the_query_stays_when_switching_and_a_bad_query_says_why() {
    let mut m = searching();
    let effects = act(&mut m, Action::ToggleSearchMode);
    assert_eq!(m.list.mode, ListMode::Sessions);
    assert!(
        effects.iter().any(
            |e| matches!(e, Effect::Matcher(MatcherJob::Query { query, .. }) if query == "token")
        ),
        "the same words now search names"
    );
    act(&mut m, Action::ToggleSearchMode);
    let req = m.list.waiting.search;
    update(
        &mut m,
        Msg::reply(
            req,
            ListReply::MessageHits {
                query: "role:x".into(),
                result: Err(UiError::new(ErrorKind::Refused, "unknown role \"x\"")),
            },
        ),
    );
    assert!(
        m.list
            .hits
            .error
            .as_ref()
            .is_some_and(|e| e.kind == ErrorKind::Refused && e.text.contains("unknown role"))
    );
    assert!(m.list.selected_row().is_none(), "no hit, no session");
}

#[test]
fn the_index_fills_every_row_and_the_list_sorts_by_it() {
    let mut m = listed(true);
    update(
        &mut m,
        Msg::reply(UNCHECKED, ListReply::IndexProgress { done: 1, total: 3 }),
    );
    assert_eq!(m.list.index, IndexState::Updating { done: 1, total: 3 });
    let effects = update(
        &mut m,
        Msg::reply(
            UNCHECKED,
            ListReply::IndexUpdated {
                result: Ok(UpdateReport::default()),
            },
        ),
    );
    assert_eq!(m.list.index, IndexState::Ready);
    assert!(matches!(
        &effects[..],
        [Effect::Store {
            op: StoreOp::List(ListOp::LoadIndexStats),
            ..
        }]
    ));
    let stats: HashMap<String, IndexedStats> = ["a", "b", "c"]
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let s = IndexedStats {
                bytes: 100 * (i as u64 + 1),
                messages: 3,
                tokens: Some(50),
                ..IndexedStats::default()
            };
            (id.to_string(), s)
        })
        .collect();
    let effects = update(
        &mut m,
        Msg::reply(UNCHECKED, ListReply::IndexStats { stats }),
    );
    assert!(
        m.list.rows.iter().all(|r| r.stats.is_some()),
        "every row, not only those near the cursor"
    );
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::Matcher(MatcherJob::Facts(rows)) if rows.len() == 3))
    );
    let effects = act(&mut m, Action::CycleSort);
    assert_eq!(m.list.sort, SortKey::Created);
    assert!(matches!(
        &effects[..],
        [Effect::Matcher(MatcherJob::Query {
            sort: SortKey::Created,
            ..
        })]
    ));
    act(&mut m, Action::CycleSort);
    assert_eq!(m.list.sort, SortKey::Size);
    assert!(
        m.app
            .status
            .as_ref()
            .unwrap()
            .text
            .contains("sorted by size")
    );
    // A failed update is kept, and searching goes on with what is indexed.
    update(
        &mut m,
        Msg::reply(
            UNCHECKED,
            ListReply::IndexUpdated {
                result: Err(UiError::new(ErrorKind::Failed, "disk full")),
            },
        ),
    );
    assert_eq!(
        m.list.index,
        IndexState::Failed(UiError::new(ErrorKind::Failed, "disk full"))
    );
}

/// Stats for a big store fill the rows a slice per turn (keys are answered
/// in between); stats that arrive again restart the fill, and a slice of the
/// older stats is not continued; the list is ranked again at the end.
#[test]
fn index_stats_fill_big_lists_in_slices() {
    let mut m = listed(true);
    let n = 12_000;
    let records: Vec<SessionRecord> = (0..n).map(|i| record(&format!("r{i}"), 3.0)).collect();
    let scan = m.list.waiting.scan;
    update(
        &mut m,
        Msg::reply(scan, ListReply::SessionsBatch { records }),
    );
    let stats: HashMap<String, IndexedStats> = (0..n)
        .map(|i| {
            (
                format!("r{i}"),
                IndexedStats {
                    bytes: 7,
                    ..IndexedStats::default()
                },
            )
        })
        .collect();
    let first = update(
        &mut m,
        Msg::reply(
            UNCHECKED,
            ListReply::IndexStats {
                stats: stats.clone(),
            },
        ),
    );
    let next = |effects: &[Effect]| {
        effects.iter().find_map(|e| match e {
            Effect::ContinueFill { generation } => Some(*generation),
            _ => None,
        })
    };
    let old = next(&first).expect("a next slice");
    let filled = |m: &Model| m.list.rows.iter().filter(|r| r.stats.is_some()).count();
    assert!(filled(&m) < n, "not every row in one turn");
    // The stats again (the index was updated): a slice of the old ones stops.
    let again = update(
        &mut m,
        Msg::reply(UNCHECKED, ListReply::IndexStats { stats }),
    );
    assert!(
        again
            .iter()
            .any(|e| matches!(e, Effect::FreeStats { stats } if stats.len() == n)),
        "the old stats are freed off the UI thread"
    );
    assert!(update(&mut m, Msg::FillIndexed { generation: old }).is_empty());
    let mut effects = again;
    let mut turns = 1;
    while let Some(generation) = next(&effects) {
        effects = update(&mut m, Msg::FillIndexed { generation });
        turns += 1;
    }
    assert!(turns >= 3, "{turns} turns");
    assert_eq!(filled(&m), n, "every row the index knows");
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::Matcher(MatcherJob::Query { .. }))),
        "ranked again once filled: {effects:?}"
    );
}
