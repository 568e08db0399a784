//! Transitions of the session list.

use super::*;
use crate::tui::model::ResumeBlocked;

#[test]
fn scan_batches_filter_and_stale_replies() {
    let mut m = listed(true);
    assert_eq!(m.list.visible, vec![0, 1, 2]);
    // A reply to an old scan or an old query is dropped.
    let records = vec![record("x", 0.0)];
    reply(&mut m, 0, ListReply::SessionsBatch { records });
    assert_eq!(m.list.rows.len(), 3);
    reply(&mut m, 0, matched("zz", vec![]));
    assert_eq!(m.list.visible, vec![0, 1, 2]);
    // Typing asks the matcher; only the newest answer counts.
    let (first, query) = only!(
        update(&mut m, Msg::Type('b')),
        Effect::Matcher(MatcherJob::Query { req, query, .. }) => (req, query)
    );
    assert_eq!(query, "b");
    let second = only!(
        update(&mut m, Msg::Type('x')),
        Effect::Matcher(MatcherJob::Query { req, .. }) => req
    );
    assert!(second > first);
    reply(&mut m, first, matched("b", vec![1]));
    assert_eq!(m.list.visible, vec![0, 1, 2], "superseded by the second");
    reply(&mut m, second, matched("bx", vec![]));
    assert!(m.list.visible.is_empty());
    only!(
        act(&mut m, Action::Edit(InputRequest::DeletePrevChar)),
        Effect::Matcher(MatcherJob::Query { query, .. }) if query == "b"
    );
}

/// The matcher's complete answer to `query`: `rows` in that order.
fn matched(query: &str, rows: Vec<usize>) -> ListReply {
    ListReply::Filtered {
        query: query.into(),
        rows,
        complete: true,
    }
}

#[test]
fn moving_asks_for_preview_and_stats_once() {
    let mut m = listed(true);
    let effects = act(&mut m, Action::Down);
    assert_eq!(m.list.selected, 1);
    assert!(asks!(
        &effects,
        StoreOp::List(ListOp::LoadPreview { record, .. }) if record.id == "b"
    ));
    let req = m.list.waiting.preview;
    let preview = Preview {
        id: "b".into(),
        last_messages: Ok(vec![]),
    };
    reply(&mut m, req, ListReply::PreviewLoaded { preview });
    assert!(m.list.preview.is_some());
    let effects = act(&mut m, Action::End);
    assert_eq!(m.list.selected, 2);
    assert!(
        !asks!(&effects, StoreOp::List(ListOp::Stats { .. })),
        "stats were asked for already"
    );
    act(&mut m, Action::Down);
    assert_eq!(m.list.selected, 2, "clamped at the end");
    act(&mut m, Action::Home);
    assert_eq!(m.list.selected, 0);
    act(&mut m, Action::PageDown);
    assert_eq!(m.list.selected, 2);
    let req = m.list.waiting.stats;
    let stats = SessionStats {
        bytes: 5,
        ..Default::default()
    };
    reply(
        &mut m,
        req,
        ListReply::Stats {
            stats: vec![(0, stats)],
        },
    );
    assert_eq!(m.list.rows[0].stats.as_ref().unwrap().bytes, 5);
    update(&mut m, Msg::Scroll(-3));
    assert_eq!(m.list.selected, 0);
}

#[test]
fn escape_clears_then_quits_and_ctrl_c_quits() {
    let mut m = listed(true);
    update(&mut m, Msg::Type('q'));
    act(&mut m, Action::ClearOrQuit);
    assert_eq!(m.list.query.value(), "");
    assert_eq!(m.exit, None);
    act(&mut m, Action::ClearOrQuit);
    assert_eq!(m.exit, Some(Exit::Cancel));
    let mut m = listed(true);
    let quit = press(&m, KeyCode::Char('c'), KeyModifiers::CONTROL).unwrap();
    update(&mut m, quit);
    assert_eq!(m.exit, Some(Exit::Cancel));
}

#[test]
fn resume_touches_then_exits_and_refuses_damaged() {
    let mut m = listed(true);
    only_store!(
        act(&mut m, Action::Resume),
        StoreOp::List(ListOp::Resume { record, .. }) if record.id == "a"
    );
    let resumed = Ok(Box::new(record("a", 0.0)));
    reply(&mut m, UNCHECKED, ListReply::Resumed { result: resumed });
    assert!(matches!(&m.exit, Some(Exit::Resume(r)) if r.id == "a"));

    let mut m = listed(true);
    m.list.rows[0].record.error = Some("bad meta".into());
    assert!(act(&mut m, Action::Resume).is_empty());
    assert!(m.app.status.as_ref().unwrap().is_error);
    assert_eq!(m.exit, None);
}

#[test]
fn a_resume_that_cannot_run_keeps_the_ui_says_why_and_copies_the_command() {
    let mut m = listed(true);
    act(&mut m, Action::Resume);
    let command = "cd /w && claude --resume=a".to_string();
    let blocked = ResumeBlocked {
        why: "Claude Code is not installed (no claude on PATH)".into(),
        command: Some(command.clone()),
    };
    reply(&mut m, UNCHECKED, ListReply::NotResumable { blocked });
    assert_eq!(m.exit, None, "the UI stays");
    let status = m.app.status.as_ref().unwrap();
    assert!(status.is_error);
    assert!(status.text.contains("not installed"), "{}", status.text);
    assert!(status.text.contains(&command), "{}", status.text);
    assert_eq!(m.app.clipboard.as_ref().map(|(_, t)| t), Some(&command));
}

#[test]
fn keymap_depends_on_the_screen() {
    let m = listed(true);
    assert!(
        matches!(key(&m, KeyCode::Char('q')), Some(Msg::Type('q'))),
        "typing filters in the list"
    );
    assert!(
        matches!(key(&m, KeyCode::Char('?')), Some(Msg::Type('?'))),
        "? is text in the search"
    );
    assert!(matches!(
        key(&m, KeyCode::F(1)),
        Some(Msg::Action(Action::Help))
    ));
    assert!(matches!(
        key(&m, KeyCode::Enter),
        Some(Msg::Action(Action::Resume))
    ));
    let v = viewing(4);
    assert!(matches!(
        key(&v, KeyCode::Char('q')),
        Some(Msg::Action(Action::Back))
    ));
    assert!(
        key(&v, KeyCode::Char('z')).is_none(),
        "an unbound letter is nothing"
    );
    let release = KeyEvent {
        kind: crossterm::event::KeyEventKind::Release,
        ..KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)
    };
    assert!(keymap::to_msg(&v, release).is_none(), "only presses count");
}

#[test]
fn refresh_keeps_the_selection() {
    let mut m = listed(true);
    act(&mut m, Action::Down);
    let effects = act(&mut m, Action::Refresh);
    let [
        Effect::Matcher(MatcherJob::Reset),
        Effect::Store {
            req,
            op: StoreOp::List(ListOp::Scan),
        },
    ] = effects[..]
    else {
        panic!("{effects:?}")
    };
    assert_eq!(req, m.list.waiting.scan);
    let records = vec![record("a", 1.0), record("b", 2.0)];
    reply(&mut m, req, ListReply::SessionsBatch { records });
    filtered(&mut m, vec![0, 1]);
    assert_eq!(m.list.selected_row().unwrap().record.id, "b");
    update(&mut m, Msg::Resize(100, 40));
    assert_eq!(m.app.size, (100, 40));
    update(&mut m, Msg::Tick(NOW + 5.0));
    assert_eq!(m.app.now, NOW + 5.0);
}

#[test]
fn a_new_sort_shows_its_top() {
    let mut m = listed(true);
    act(&mut m, Action::Down);
    act(&mut m, Action::Down);
    assert_eq!(m.list.selected, 2);
    let req = only!(
        act(&mut m, Action::CycleSort),
        Effect::Matcher(MatcherJob::Query { req, .. }) => req
    );
    // The session selected (row 2) is second in the new order.
    reply(&mut m, req, ranked(vec![0, 2, 1]));
    assert_eq!(
        m.list.selected, 0,
        "the sort's first row, not the old selection"
    );
    act(&mut m, Action::Down);
    assert_eq!(m.list.selected, 1, "the next answer keeps the cursor again");
}

#[test]
fn the_cursor_stays_on_the_first_row_until_the_person_moves_it() {
    let mut m = listed(true);
    assert_eq!(m.list.selected, 0);
    // A newer row arrives above the one under the cursor (the matcher
    // answers for the query shown): the cursor stays on the first row
    // (Enter resumes the newest), not on the old one.
    filtered(&mut m, vec![2, 0, 1]);
    assert_eq!(m.list.selected, 0);
    assert_eq!(m.list.selected_row().unwrap().record.id, "c");
    // Once the person moves, the row they chose stays chosen.
    act(&mut m, Action::Down);
    assert_eq!(m.list.selected_row().unwrap().record.id, "a");
    filtered(&mut m, vec![1, 2, 0]);
    assert_eq!(m.list.selected_row().unwrap().record.id, "a");
}

#[test]
fn esc_first_dismisses_a_message_then_quits() {
    let mut m = listed(true);
    m.app.say("reading the store again");
    act(&mut m, Action::ClearOrQuit);
    assert!(
        m.app.status.is_none() && m.exit.is_none(),
        "the message went, the UI stays"
    );
    act(&mut m, Action::ClearOrQuit);
    assert!(matches!(m.exit, Some(Exit::Cancel)));
}

/// The store's first batch has arrived and is ranked, the scan goes on.
fn half_listed() -> (Model, u64) {
    let mut m = Model::new(settings(true), NOW);
    let scan = among_store!(&init(&mut m), StoreOp::List(ListOp::Scan));
    let records = vec![record("old", 1.0), record("older", 2.0)];
    reply(&mut m, scan, ListReply::SessionsBatch { records });
    filtered(&mut m, vec![0, 1]);
    (m, scan)
}

/// The matcher's complete answer to the list's newest ranking.
fn filtered(m: &mut Model, rows: Vec<usize>) -> Vec<Effect> {
    let req = m.list.waiting.filter;
    reply(m, req, ranked(rows))
}

/// The session `effects` resume, if any.
fn resumes(effects: &[Effect]) -> Option<String> {
    first_store!(effects, StoreOp::List(ListOp::Resume { record, .. }) => record.id.to_string())
        .map(|(_, id)| id)
}

#[test]
fn enter_while_sessions_arrive_resumes_the_newest_once_every_one_is_listed() {
    let (mut m, scan) = half_listed();
    // Enter at once: the first row is the newest of the first batch only.
    let effects = act(&mut m, Action::Resume);
    assert_eq!(resumes(&effects), None, "{effects:?}");
    assert!(m.app.status.is_some(), "it says it waits");
    // A newer session arrives in the last batch and ranks first.
    let records = vec![record("newest", 0.1)];
    let effects = reply(&mut m, scan, ListReply::SessionsBatch { records });
    assert_eq!(resumes(&effects), None);
    // The scan ends before the last ranking comes: still waiting.
    let effects = reply(&mut m, scan, scan_done());
    assert_eq!(resumes(&effects), None, "{effects:?}");
    let effects = filtered(&mut m, vec![2, 0, 1]);
    assert_eq!(resumes(&effects).as_deref(), Some("newest"));
    // Once only.
    let effects = filtered(&mut m, vec![2, 0, 1]);
    assert_eq!(resumes(&effects), None);
}

#[test]
fn a_move_or_a_key_after_an_early_enter_cancels_it() {
    for cancel in [Msg::Action(Action::Down), Msg::Type('x')] {
        let (mut m, scan) = half_listed();
        act(&mut m, Action::Resume);
        update(&mut m, cancel);
        let mut effects = reply(&mut m, scan, scan_done());
        effects.extend(filtered(&mut m, vec![0, 1]));
        assert_eq!(resumes(&effects), None, "{effects:?}");
    }
}

#[test]
fn enter_on_a_row_the_person_chose_resumes_it_at_once_while_the_scan_goes_on() {
    let (mut m, _) = half_listed();
    act(&mut m, Action::Down);
    let effects = act(&mut m, Action::Resume);
    assert_eq!(resumes(&effects).as_deref(), Some("older"));
}

#[test]
fn a_ranking_asked_before_a_rescan_is_not_taken_after_it() {
    // Its rows are gone: taken, it put the cursor past the end of the
    // list and the next move panicked.
    let mut m = listed(true);
    act(&mut m, Action::End);
    let stale = m.list.waiting.filter;
    act(&mut m, Action::Refresh);
    assert!(m.list.rows.is_empty());
    reply(&mut m, stale, ranked(vec![2, 1, 0]));
    assert!(m.list.visible.is_empty(), "{:?}", m.list.visible);
    act(&mut m, Action::Down);
    act(&mut m, Action::Up);
}

#[test]
fn once_listed_the_agents_cleanups_are_asked_about_and_answered() {
    let (mut m, scan) = half_listed();
    let mut claude = record("claude-one", 5.0);
    claude.agent = crate::store::Agent::Claude;
    reply(
        &mut m,
        scan,
        ListReply::SessionsBatch {
            records: vec![claude],
        },
    );
    let effects = reply(&mut m, scan, scan_done());
    let (req, records) = first_store!(
        &effects,
        StoreOp::List(ListOp::Retention { records }) => records.clone()
    )
    .expect("the cleanups asked about");
    let ids: Vec<&str> = records.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["claude-one"], "other agents' sessions only");
    let deletes_at = [("claude-one".to_string(), NOW + 3.0 * 86_400.0)]
        .into_iter()
        .collect();
    reply(
        &mut m,
        req,
        ListReply::Retention {
            deletes_at,
            rules: Vec::new(),
        },
    );
    assert_eq!(m.list.agent_deletes_at["claude-one"], NOW + 3.0 * 86_400.0);
}

#[test]
fn with_the_setting_on_what_is_due_is_kept_off_the_ui_thread_and_said() {
    for setting in [None, Some(7.0 * 86_400.0)] {
        let (mut m, scan) = half_listed();
        m.app.settings.archive_due = setting;
        let mut claude = record("claude-one", 5.0);
        claude.agent = crate::store::Agent::Claude;
        reply(
            &mut m,
            scan,
            ListReply::SessionsBatch {
                records: vec![claude],
            },
        );
        let effects = reply(&mut m, scan, scan_done());
        let asked = first_store!(
            &effects,
            StoreOp::List(ListOp::KeepDue { records, within }) => (records.len(), *within)
        );
        let Some(within) = setting else {
            assert!(asked.is_none(), "off: nothing is archived");
            continue;
        };
        let (req, (records, asked_within)) = asked.expect("what is due kept");
        assert_eq!((records, asked_within), (1, within));
        let kept = |kept, bytes| ListReply::KeptDue {
            within,
            kept,
            bytes,
            failed: Vec::new(),
        };
        reply(&mut m, req, kept(2, 2048));
        let said = m.app.status.as_ref().expect("said").text.clone();
        assert!(said.starts_with("kept 2 sessions in the archive"), "{said}");
        assert!(said.contains("within 7 days"), "{said}");
        // After what the person just did: said after it, not over it.
        m.app.say("moved b to /new".to_string());
        reply(&mut m, req, kept(1, 10));
        let said = m.app.status.as_ref().expect("said").text.clone();
        assert!(
            said.starts_with("moved b to /new; kept 1 session"),
            "{said}"
        );
        // Nothing new kept: nothing said.
        m.app.status = None;
        reply(&mut m, req, kept(0, 0));
        assert!(m.app.status.is_none());
    }
}
