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
        passage: Default::default(),
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
        let (r, query, sessions) = only!(
            update(&mut m, Msg::Type(c)),
            Effect::Search(SearchJob { req, query, sessions }) => (req, query, sessions)
        );
        assert_eq!(sessions, 3);
        assert!("token".starts_with(query.as_str()));
        req = r;
    }
    // A late answer to an older query is dropped.
    let stale = Ok(SearchOutcome::default());
    reply(&mut m, req - 1, message_hits("toke", stale));
    assert!(!m.list.hits.answered);
    let outcome = SearchOutcome {
        hits: vec![hit("b", "m2"), hit("a", "m1")],
        total: 2,
        covered: 2,
        sessions: 3,
        note: None,
        ..SearchOutcome::default()
    };
    let effects = reply(&mut m, req, message_hits("token", Ok(outcome)));
    assert!(
        asks!(&effects, StoreOp::List(ListOp::LoadPreview { record, .. }) if record.id == "b"),
        "the preview follows the selected hit: {effects:?}"
    );
    m
}

/// The search's answer to `query`.
fn message_hits(query: &str, result: Result<SearchOutcome, UiError>) -> ListReply {
    ListReply::MessageHits {
        query: query.into(),
        result,
    }
}

/// What the store read of session a: `ctx`, not an agent's.
fn loaded(ctx: Context) -> ViewerReply {
    let loaded = Loaded {
        facts: None,
        context: Arc::new(ctx),
        agent_owned: false,
        usage: None,
        notes: Vec::new(),
        recorded: None,
    };
    ViewerReply::ConversationLoaded { result: Ok(loaded) }
}

#[test]
fn message_hits_are_rows_enter_resumes_and_tab_opens_at_the_message() {
    let mut m = searching();
    assert_eq!(m.list.hits.hits.len(), 2);
    act(&mut m, Action::Down);
    assert_eq!(m.list.selected_hit().unwrap().session_id, "a");
    only_store!(
        act(&mut m, Action::Resume),
        StoreOp::List(ListOp::Resume { record, .. }) if record.id == "a"
    );
    let effects = act(&mut m, Action::Open);
    let Some(viewer) = m.viewer() else {
        panic!("the viewer opened")
    };
    assert_eq!(viewer.goto, Some(("m1".to_string(), "token".to_string())));
    let (req, record) = only_store!(
        effects,
        StoreOp::Viewer(ViewerOp::LoadConversation { record, context: None }) => record
    );
    assert_eq!(record.id, "a");
    reply(&mut m, req, loaded(context(5)));
    let viewer = m.viewer().unwrap();
    assert_eq!(
        viewer.selected, 2,
        "message m1 is at index 2, after the system prompt"
    );
    assert_eq!(viewer.find.as_deref(), Some("token"));
}

#[test]
fn a_hit_in_a_side_conversation_opens_it_read_only_at_the_message() {
    let mut m = searching();
    act(&mut m, Action::Down);
    // The hit is in a subagent's thread, not in the session's own context.
    let side = "agent-1234".to_string();
    let hit_at = m.list.hits.rows[m.list.hits.selected].hit;
    m.list.hits.hits[hit_at].message_id = "m6".into();
    m.list.hits.hits[hit_at].context_id = side.clone();
    let req = only_store!(act(&mut m, Action::Open), _);
    // The session's own context has no such message: the side one is read.
    let (req, (record, asked)) = only_store!(
        reply(&mut m, req, loaded(context(5))),
        StoreOp::Viewer(ViewerOp::LoadConversation {
            record,
            context: Some(asked),
        }) => (record, asked)
    );
    assert_eq!((record.id.as_str(), &asked), ("a", &side));
    let said = m.app.status.as_ref().unwrap().text.clone();
    assert!(
        said.contains("side conversation") && said.contains("read only"),
        "{said}"
    );
    // A longer thread: its message m6 is not in the session's own five.
    reply(&mut m, req, loaded(context(8)));
    let viewer = m.viewer().unwrap();
    assert_eq!(viewer.side.as_deref(), Some("agent-1234"));
    assert_eq!(
        viewer.selected, 7,
        "at the message, after the system prompt"
    );
    // Nothing that would change the session is offered on it.
    for action in [
        Action::TrimKeepLast,
        Action::Mark,
        Action::StartClear,
        Action::Contexts,
    ] {
        m.app.status = None;
        assert!(act(&mut m, action).is_empty(), "{action:?}");
        assert!(
            m.app.status.as_ref().is_some_and(|s| s.is_error),
            "{action:?}"
        );
    }
}

/// `searching()` answered again, with hits in a, b, a, a, c (best first).
fn grouped(m: &mut Model, query: &str) {
    let hits = vec![
        hit("a", "a1"),
        hit("b", "b1"),
        hit("a", "a2"),
        hit("a", "a3"),
        hit("c", "c1"),
    ];
    let outcome = SearchOutcome {
        total: hits.len(),
        hits,
        covered: 3,
        sessions: 3,
        ..SearchOutcome::default()
    };
    let req = m.list.waiting.search;
    reply(m, req, message_hits(query, Ok(outcome)));
}

fn shown(m: &Model) -> Vec<(String, usize)> {
    let hits = &m.list.hits;
    hits.rows
        .iter()
        .map(|r| (hits.hits[r.hit].message_id.clone(), r.group))
        .collect()
}

#[test]
fn a_sessions_hits_are_one_row_until_enter_opens_them() {
    let mut m = searching();
    grouped(&mut m, "token");
    let row = |id: &str, group| (id.to_string(), group);
    assert_eq!(shown(&m), [row("a1", 3), row("b1", 1), row("c1", 1)]);
    assert_eq!(
        crate::tui::view::hits::counts(&m.list.hits),
        "5 messages matching in 3 sessions"
    );
    // The cursor stayed on b's message, now the second row.
    assert_eq!(m.list.hits.selected, 1);
    act(&mut m, Action::Up);
    // Enter on the group opens it, nothing resumed.
    let effects = act(&mut m, Action::Resume);
    assert!(
        !asks!(&effects, StoreOp::List(ListOp::Resume { .. })),
        "{effects:?}"
    );
    assert!(m.exit.is_none());
    assert_eq!(
        shown(&m),
        [
            row("a1", 3),
            row("a2", 0),
            row("a3", 0),
            row("b1", 1),
            row("c1", 1)
        ]
    );
    // A hit inside it: Tab opens the viewer there.
    act(&mut m, Action::Down);
    act(&mut m, Action::Down);
    assert_eq!(m.list.selected_hit().unwrap().message_id, "a3");
    // The index grew: the same query answered again keeps the group open
    // and the cursor on its message.
    grouped(&mut m, "token");
    assert_eq!(m.list.hits.rows.len(), 5);
    assert_eq!(m.list.selected_hit().unwrap().message_id, "a3");
    // Enter in an open group folds it, the cursor on its first row.
    act(&mut m, Action::Resume);
    assert_eq!(shown(&m), [row("a1", 3), row("b1", 1), row("c1", 1)]);
    assert_eq!(m.list.hits.selected, 0);
    // Enter on a single hit resumes its session.
    act(&mut m, Action::Down);
    only_store!(
        act(&mut m, Action::Resume),
        StoreOp::List(ListOp::Resume { record, .. }) if record.id == "b"
    );
}

#[test]
fn a_new_query_starts_with_every_group_closed() {
    let mut m = searching();
    grouped(&mut m, "token");
    act(&mut m, Action::Up);
    act(&mut m, Action::Resume);
    assert_eq!(m.list.hits.rows.len(), 5);
    grouped(&mut m, "tokens");
    assert_eq!(m.list.hits.rows.len(), 3);
    assert_eq!(m.list.hits.selected, 0);
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
    let refusal = UiError::new(ErrorKind::Refused, "unknown role \"x\"");
    reply(&mut m, req, message_hits("role:x", Err(refusal)));
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
    reply(
        &mut m,
        UNCHECKED,
        ListReply::IndexProgress { done: 1, total: 3 },
    );
    assert_eq!(m.list.index, IndexState::Updating { done: 1, total: 3 });
    let updated = ListReply::IndexUpdated {
        result: Ok(UpdateReport::default()),
    };
    let effects = reply(&mut m, UNCHECKED, updated);
    assert_eq!(m.list.index, IndexState::Ready);
    only_store!(effects, StoreOp::List(ListOp::LoadIndexStats));
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
    let effects = reply(&mut m, UNCHECKED, ListReply::IndexStats { stats });
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
    only!(
        effects,
        Effect::Matcher(MatcherJob::Query {
            sort: SortKey::Created,
            ..
        })
    );
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
    let failed = Err(UiError::new(ErrorKind::Failed, "disk full"));
    reply(
        &mut m,
        UNCHECKED,
        ListReply::IndexUpdated { result: failed },
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
    reply(&mut m, scan, ListReply::SessionsBatch { records });
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
    let first = reply(
        &mut m,
        UNCHECKED,
        ListReply::IndexStats {
            stats: stats.clone(),
        },
    );
    let next =
        |effects: &[Effect]| first!(effects, Effect::ContinueFill { generation } => *generation);
    let old = next(&first).expect("a next slice");
    let filled = |m: &Model| m.list.rows.iter().filter(|r| r.stats.is_some()).count();
    assert!(filled(&m) < n, "not every row in one turn");
    // The stats again (the index was updated): a slice of the old ones stops.
    let again = reply(&mut m, UNCHECKED, ListReply::IndexStats { stats });
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
