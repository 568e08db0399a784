//! Transitions of the session list.

use super::*;
use crate::tui::model::ResumeBlocked;

#[test]
fn scan_batches_filter_and_stale_replies() {
    let mut m = listed(true);
    assert_eq!(m.list.visible, vec![0, 1, 2]);
    // A reply to an old scan or an old query is dropped.
    update(
        &mut m,
        Msg::reply(
            0,
            ListReply::SessionsBatch {
                records: vec![record("x", 0.0)],
            },
        ),
    );
    assert_eq!(m.list.rows.len(), 3);
    update(
        &mut m,
        Msg::reply(
            0,
            ListReply::Filtered {
                query: "zz".into(),
                rows: vec![],
                complete: true,
            },
        ),
    );
    assert_eq!(m.list.visible, vec![0, 1, 2]);
    // Typing asks the matcher; only the newest answer counts.
    let effects = update(&mut m, Msg::Type('b'));
    let [
        Effect::Matcher(MatcherJob::Query {
            req: first, query, ..
        }),
    ] = &effects[..]
    else {
        panic!("{effects:?}")
    };
    assert_eq!(query, "b");
    let first = *first;
    let effects = update(&mut m, Msg::Type('x'));
    let [Effect::Matcher(MatcherJob::Query { req: second, .. })] = effects[..] else {
        panic!("{effects:?}")
    };
    assert!(second > first);
    update(
        &mut m,
        Msg::reply(
            first,
            ListReply::Filtered {
                query: "b".into(),
                rows: vec![1],
                complete: true,
            },
        ),
    );
    assert_eq!(m.list.visible, vec![0, 1, 2], "superseded by the second");
    update(
        &mut m,
        Msg::reply(
            second,
            ListReply::Filtered {
                query: "bx".into(),
                rows: vec![],
                complete: true,
            },
        ),
    );
    assert!(m.list.visible.is_empty());
    let effects = act(&mut m, Action::Edit(InputRequest::DeletePrevChar));
    assert!(
        matches!(&effects[..], [Effect::Matcher(MatcherJob::Query { query, .. })] if query == "b")
    );
}

#[test]
fn moving_asks_for_preview_and_stats_once() {
    let mut m = listed(true);
    let effects = act(&mut m, Action::Down);
    assert_eq!(m.list.selected, 1);
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::Store { op: StoreOp::List(ListOp::LoadPreview { record, .. }), .. } if record.id == "b"))
    );
    let req = m.list.waiting.preview;
    update(
        &mut m,
        Msg::reply(
            req,
            ListReply::PreviewLoaded {
                preview: Preview {
                    id: "b".into(),
                    last_messages: Ok(vec![]),
                },
            },
        ),
    );
    assert!(m.list.preview.is_some());
    let effects = act(&mut m, Action::End);
    assert_eq!(m.list.selected, 2);
    assert!(
        !effects.iter().any(|e| matches!(
            e,
            Effect::Store {
                op: StoreOp::List(ListOp::Stats { .. }),
                ..
            }
        )),
        "stats were asked for already"
    );
    act(&mut m, Action::Down);
    assert_eq!(m.list.selected, 2, "clamped at the end");
    act(&mut m, Action::Home);
    assert_eq!(m.list.selected, 0);
    act(&mut m, Action::PageDown);
    assert_eq!(m.list.selected, 2);
    let req = m.list.waiting.stats;
    update(
        &mut m,
        Msg::reply(
            req,
            ListReply::Stats {
                stats: vec![(
                    0,
                    SessionStats {
                        bytes: 5,
                        ..Default::default()
                    },
                )],
            },
        ),
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
    let quit =
        keymap::to_msg(&m, KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)).unwrap();
    update(&mut m, quit);
    assert_eq!(m.exit, Some(Exit::Cancel));
}

#[test]
fn resume_touches_then_exits_and_refuses_damaged() {
    let mut m = listed(true);
    let effects = act(&mut m, Action::Resume);
    assert!(
        matches!(&effects[..], [Effect::Store { op: StoreOp::List(ListOp::Resume { record, .. }), .. }] if record.id == "a")
    );
    update(
        &mut m,
        Msg::reply(
            UNCHECKED,
            ListReply::Resumed {
                result: Ok(Box::new(record("a", 0.0))),
            },
        ),
    );
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
    update(
        &mut m,
        Msg::reply(
            UNCHECKED,
            ListReply::NotResumable {
                blocked: ResumeBlocked {
                    why: "Claude Code is not installed (no claude on PATH)".into(),
                    command: Some(command.clone()),
                },
            },
        ),
    );
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
    update(
        &mut m,
        Msg::reply(
            req,
            ListReply::SessionsBatch {
                records: vec![record("a", 1.0), record("b", 2.0)],
            },
        ),
    );
    let req = m.list.waiting.filter;
    update(
        &mut m,
        Msg::reply(
            req,
            ListReply::Filtered {
                query: String::new(),
                rows: vec![0, 1],
                complete: true,
            },
        ),
    );
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
    let effects = act(&mut m, Action::CycleSort);
    let [Effect::Matcher(MatcherJob::Query { req, .. })] = effects[..] else {
        panic!("{effects:?}")
    };
    // The session selected (row 2) is second in the new order.
    update(
        &mut m,
        Msg::reply(
            req,
            ListReply::Filtered {
                query: String::new(),
                rows: vec![0, 2, 1],
                complete: true,
            },
        ),
    );
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
    let filter = |m: &mut Model, rows: Vec<usize>| {
        // What the matcher answers for the query shown, as rows arrive.
        let req = m.list.waiting.filter;
        update(
            m,
            Msg::reply(
                req,
                ListReply::Filtered {
                    query: String::new(),
                    rows,
                    complete: true,
                },
            ),
        );
    };
    assert_eq!(m.list.selected, 0);
    // A newer row arrives above the one under the cursor: the cursor stays
    // on the first row (Enter resumes the newest), not on the old one.
    filter(&mut m, vec![2, 0, 1]);
    assert_eq!(m.list.selected, 0);
    assert_eq!(m.list.selected_row().unwrap().record.id, "c");
    // Once the person moves, the row they chose stays chosen.
    act(&mut m, Action::Down);
    assert_eq!(m.list.selected_row().unwrap().record.id, "a");
    filter(&mut m, vec![1, 2, 0]);
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
    let effects = init(&mut m);
    let Some(scan) = effects.iter().find_map(|e| match e {
        Effect::Store {
            req,
            op: StoreOp::List(ListOp::Scan),
        } => Some(*req),
        _ => None,
    }) else {
        panic!("{effects:?}")
    };
    let records = vec![record("old", 1.0), record("older", 2.0)];
    update(
        &mut m,
        Msg::reply(scan, ListReply::SessionsBatch { records }),
    );
    filtered(&mut m, vec![0, 1]);
    (m, scan)
}

/// The matcher's complete answer to the list's newest ranking.
fn filtered(m: &mut Model, rows: Vec<usize>) -> Vec<Effect> {
    let req = m.list.waiting.filter;
    update(
        m,
        Msg::reply(
            req,
            ListReply::Filtered {
                query: String::new(),
                rows,
                complete: true,
            },
        ),
    )
}

fn resumes(effects: &[Effect]) -> Option<String> {
    effects.iter().find_map(|e| match e {
        Effect::Store {
            op: StoreOp::List(ListOp::Resume { record, .. }),
            ..
        } => Some(record.id.to_string()),
        _ => None,
    })
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
    let effects = update(
        &mut m,
        Msg::reply(scan, ListReply::SessionsBatch { records }),
    );
    assert_eq!(resumes(&effects), None);
    let done = ListReply::ScanDone {
        folder: "/store/users/u/session".into(),
        error: None,
    };
    // The scan ends before the last ranking comes: still waiting.
    let effects = update(&mut m, Msg::reply(scan, done));
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
        let done = ListReply::ScanDone {
            folder: "/store/users/u/session".into(),
            error: None,
        };
        let mut effects = update(&mut m, Msg::reply(scan, done));
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
    update(
        &mut m,
        Msg::reply(
            stale,
            ListReply::Filtered {
                query: String::new(),
                rows: vec![2, 1, 0],
                complete: true,
            },
        ),
    );
    assert!(m.list.visible.is_empty(), "{:?}", m.list.visible);
    act(&mut m, Action::Down);
    act(&mut m, Action::Up);
}

#[test]
fn once_listed_the_agents_cleanups_are_asked_about_and_answered() {
    let (mut m, scan) = half_listed();
    let mut claude = record("claude-one", 5.0);
    claude.agent = crate::store::Agent::Claude;
    update(
        &mut m,
        Msg::reply(
            scan,
            ListReply::SessionsBatch {
                records: vec![claude],
            },
        ),
    );
    let done = ListReply::ScanDone {
        folder: "/store/users/u/session".into(),
        error: None,
    };
    let effects = update(&mut m, Msg::reply(scan, done));
    let asked = effects.iter().find_map(|e| match e {
        Effect::Store {
            req,
            op: StoreOp::List(ListOp::Retention { records }),
        } => Some((*req, records.clone())),
        _ => None,
    });
    let (req, records) = asked.expect("the cleanups asked about");
    let ids: Vec<&str> = records.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["claude-one"], "other agents' sessions only");
    let deletes_at = [("claude-one".to_string(), NOW + 3.0 * 86_400.0)].into();
    update(
        &mut m,
        Msg::reply(
            req,
            ListReply::Retention {
                deletes_at,
                rules: Vec::new(),
            },
        ),
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
        update(
            &mut m,
            Msg::reply(
                scan,
                ListReply::SessionsBatch {
                    records: vec![claude],
                },
            ),
        );
        let done = ListReply::ScanDone {
            folder: "/store/users/u/session".into(),
            error: None,
        };
        let effects = update(&mut m, Msg::reply(scan, done));
        let asked = effects.iter().find_map(|e| match e {
            Effect::Store {
                req,
                op: StoreOp::List(ListOp::KeepDue { records, within }),
            } => Some((*req, records.len(), *within)),
            _ => None,
        });
        let Some(within) = setting else {
            assert!(asked.is_none(), "off: nothing is archived");
            continue;
        };
        let (req, records, asked_within) = asked.expect("what is due kept");
        assert_eq!((records, asked_within), (1, within));
        update(
            &mut m,
            Msg::reply(
                req,
                ListReply::KeptDue {
                    within,
                    kept: 2,
                    bytes: 2048,
                    failed: Vec::new(),
                },
            ),
        );
        let said = m.app.status.as_ref().expect("said").text.clone();
        assert!(said.starts_with("kept 2 sessions in the archive"), "{said}");
        assert!(said.contains("within 7 days"), "{said}");
        // After what the person just did: said after it, not over it.
        m.app.say("moved b to /new".to_string());
        update(
            &mut m,
            Msg::reply(
                req,
                ListReply::KeptDue {
                    within,
                    kept: 1,
                    bytes: 10,
                    failed: Vec::new(),
                },
            ),
        );
        let said = m.app.status.as_ref().expect("said").text.clone();
        assert!(
            said.starts_with("moved b to /new; kept 1 session"),
            "{said}"
        );
        // Nothing new kept: nothing said.
        m.app.status = None;
        update(
            &mut m,
            Msg::reply(
                req,
                ListReply::KeptDue {
                    within,
                    kept: 0,
                    bytes: 0,
                    failed: Vec::new(),
                },
            ),
        );
        assert!(m.app.status.is_none());
    }
}
