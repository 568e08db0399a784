//! Following the disk: the watcher's reports, the list's rereads, the
//! viewer's follow of its session.

use super::*;
use crate::store::{Reread, SessionRef, StoreEvent, WatchMode};
use crate::tui::model::{EditKind, EditState};

fn sref(id: &str) -> SessionRef {
    SessionRef {
        agent: crate::store::Agent::Loki,
        id: id.into(),
        path: PathBuf::from(format!("/s/{id}")),
    }
}

fn disk(m: &mut Model, ids: &[&str], at: f64) -> Vec<Effect> {
    let sessions = ids.iter().map(|id| sref(id)).collect();
    update(
        m,
        Msg::Disk {
            event: StoreEvent::Sessions(sessions),
            at,
        },
    )
}

fn reread_req(effects: &[Effect]) -> u64 {
    first_store!(effects, StoreOp::List(ListOp::Reread { .. }))
        .expect("the list reads the sessions again")
}

/// The sessions read again, as the worker answers request `req`.
fn reread(m: &mut Model, req: u64, results: Vec<Reread>) -> Vec<Effect> {
    reply(m, req, ListReply::Reread { results })
}

fn filtered(m: &mut Model, effects: &[Effect], rows: Vec<usize>) -> Vec<Effect> {
    let req = first!(effects, Effect::Matcher(MatcherJob::Query { req, .. }) => *req)
        .expect("the list asks the matcher again");
    reply(m, req, ranked(rows))
}

#[test]
fn a_changed_session_is_read_again_in_place_and_marked_live_the_selection_kept() {
    let mut m = listed(true);
    act(&mut m, Action::Down); // b selected
    let effects = disk(&mut m, &["b"], NOW + 5.0);
    let req = reread_req(&effects);
    let mut b = record("b", 0.0);
    b.name = "b-renamed-by-the-agent".into();
    let effects = reread(&mut m, req, vec![Reread::Present(Box::new(b))]);
    // Its stats are gathered again, wherever the cursor is.
    assert!(
        asks!(
            &effects,
            StoreOp::List(ListOp::Stats { rows, .. }) if rows.len() == 1 && rows[0].0 == 1
        ),
        "{effects:?}"
    );
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::Matcher(MatcherJob::Add(rows)) if rows[0].0 == 1))
    );
    filtered(&mut m, &effects, vec![1, 0, 2]);
    let row = m.list.selected_row().unwrap();
    assert_eq!(row.record.name, "b-renamed-by-the-agent");
    assert_eq!(row.changed_at, Some(NOW + 5.0));
    assert_eq!(m.list.rows.len(), 3, "no row was added");
}

#[test]
fn a_new_session_is_added_and_a_gone_one_leaves() {
    let mut m = listed(true);
    let effects = disk(&mut m, &["d", "c"], NOW);
    let req = reread_req(&effects);
    let results = vec![
        Reread::Present(Box::new(record("d", 0.0))),
        Reread::Gone(sref("c")),
    ];
    let effects = reread(&mut m, req, results);
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::Matcher(MatcherJob::Remove(rows)) if rows == &[2]))
    );
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::Matcher(MatcherJob::Add(rows)) if rows[0].0 == 3))
    );
    assert_eq!(m.list.by_id.get("d"), Some(&3));
    assert!(!m.list.by_id.contains_key("c"));
    assert!(m.list.rows[2].gone);
    // A scan that still finds d does not list it twice.
    let scan = m.list.waiting.scan;
    let records = vec![record("d", 0.0)];
    reply(&mut m, scan, ListReply::SessionsBatch { records });
    assert_eq!(m.list.rows.len(), 4);
}

#[test]
fn an_older_reading_arriving_late_is_not_applied_over_a_newer_one() {
    let mut m = listed(true);
    let first = reread_req(&disk(&mut m, &["a"], NOW));
    let second = reread_req(&disk(&mut m, &["a"], NOW + 1.0));
    let mut newer = record("a", 0.0);
    newer.name = "newer".into();
    reread(&mut m, second, vec![Reread::Present(Box::new(newer))]);
    let mut older = record("a", 0.0);
    older.name = "older".into();
    reread(&mut m, first, vec![Reread::Present(Box::new(older))]);
    assert_eq!(m.list.rows[0].record.name, "newer");
}

#[test]
fn the_index_hears_of_changes_one_update_at_a_time_once_it_is_ready() {
    let mut m = listed(true);
    let effects = disk(&mut m, &["a"], NOW);
    // The start-up update still runs: the changes wait for it.
    assert!(!asks!(&effects, StoreOp::List(ListOp::IndexFollow { .. })));
    let updated = ListReply::IndexUpdated {
        result: Ok(Default::default()),
    };
    let effects = reply(&mut m, UNCHECKED, updated);
    let (_, sessions) = first_store!(
        &effects,
        StoreOp::List(ListOp::IndexFollow { sessions }) => sessions.clone()
    )
    .expect("the index is told");
    assert_eq!(sessions, vec![sref("a")]);
    // While it runs, more changes wait...
    let effects = disk(&mut m, &["b"], NOW);
    assert!(!asks!(&effects, StoreOp::List(ListOp::IndexFollow { .. })));
    // ...and go when it is done.
    let followed = ListReply::IndexFollowed {
        result: Ok(Default::default()),
    };
    let effects = reply(&mut m, UNCHECKED, followed);
    assert!(
        asks!(
            &effects,
            StoreOp::List(ListOp::IndexFollow { sessions }) if sessions == &[sref("b")]
        ),
        "{effects:?}"
    );
}

#[test]
fn the_status_says_when_the_disk_is_polled() {
    let mut m = listed(true);
    let mode = WatchMode::Polling {
        polled: 7,
        why: "polling was asked for".into(),
    };
    update(
        &mut m,
        Msg::Disk {
            event: StoreEvent::Mode(mode.clone()),
            at: NOW,
        },
    );
    let status = m.app.status.clone().unwrap().text;
    assert!(status.contains("polling 7 folders"), "{status}");
    assert_eq!(m.app.watch, Some(mode));
}

#[test]
fn a_folder_that_goes_is_said_and_the_list_is_read_again_when_it_is_back() {
    let mut m = listed(true);
    let dir = std::path::PathBuf::from("/h/.claude/projects");
    let rescans = |effects: &[Effect]| asks!(effects, StoreOp::List(ListOp::Scan));
    let effects = update(
        &mut m,
        Msg::Disk {
            event: StoreEvent::FolderGone(dir.clone()),
            at: NOW,
        },
    );
    let status = m.app.status.clone().unwrap();
    assert!(status.is_error);
    assert!(
        status.text.contains("/h/.claude/projects went"),
        "{}",
        status.text
    );
    assert!(rescans(&effects), "{effects:?}");
    let effects = update(
        &mut m,
        Msg::Disk {
            event: StoreEvent::FolderBack(dir),
            at: NOW,
        },
    );
    let status = m.app.status.clone().unwrap().text;
    assert!(status.contains("there again"), "{status}");
    assert!(rescans(&effects), "{effects:?}");
}

/// The context of [`context`] with `extra` more messages.
fn grown(n: usize, extra: usize) -> Context {
    let mut ctx = context(n + extra);
    // Same messages, same ids: only the count grew.
    let _ = &mut ctx;
    ctx
}

fn follow_req(effects: &[Effect]) -> u64 {
    first_store!(effects, StoreOp::Viewer(ViewerOp::Follow { .. }))
        .expect("the viewer reads its session again")
}

fn followed(m: &mut Model, req: u64, ctx: Context) -> Vec<Effect> {
    let loaded = Loaded {
        facts: None,
        usage: None,
        notes: Vec::new(),
        recorded: None,
        context: Arc::new(ctx),
        agent_owned: true,
    };
    reply(m, req, ViewerReply::Followed { result: Ok(loaded) })
}

#[test]
fn appended_messages_are_counted_alone_and_the_selection_and_marks_stay() {
    let mut m = viewing(6);
    act(&mut m, Action::Home);
    act(&mut m, Action::Down); // m0 selected
    act(&mut m, Action::Mark);
    let before = m.viewer().unwrap().selected;
    let effects = disk(&mut m, &["a"], NOW);
    let req = follow_req(&effects);
    let effects = followed(&mut m, req, grown(6, 3));
    // Only the three new messages are counted.
    assert!(
        asks!(
            &effects,
            StoreOp::Viewer(ViewerOp::CountAppended { from: 7, .. })
        ),
        "{effects:?}"
    );
    let v = m.viewer().unwrap();
    assert_eq!(v.loaded.as_ref().unwrap().len(), 10);
    assert_eq!(v.selected, before);
    assert_eq!(v.counts[&Encoding::Cl100kBase][..7], [Some(10); 7]);
    assert_eq!(v.counts[&Encoding::Cl100kBase][7..], [None; 3]);
    let Some(edit) = v.edit() else {
        panic!("the edit in preparation stays")
    };
    assert!(edit.drop_marks.contains(&1));
    // Its plan waits for the new counts, then is made again on them.
    assert!(edit.plan.is_none());
}

#[test]
fn following_the_end_selects_what_the_agent_appends_and_scrolling_up_stops_it() {
    let mut m = viewing(4);
    act(&mut m, Action::Home);
    act(&mut m, Action::Follow);
    assert_eq!(m.viewer().unwrap().selected, 4);
    let req = follow_req(&disk(&mut m, &["a"], NOW));
    followed(&mut m, req, grown(4, 2));
    assert_eq!(m.viewer().unwrap().selected, 6);
    act(&mut m, Action::Up);
    assert!(!m.viewer().unwrap().follow);
    assert!(
        m.app
            .status
            .clone()
            .unwrap()
            .text
            .contains("stopped following")
    );
    let req = follow_req(&disk(&mut m, &["a"], NOW));
    followed(&mut m, req, grown(4, 3));
    assert_eq!(
        m.viewer().unwrap().selected,
        5,
        "not following: the selection stays"
    );
}

#[test]
fn f_in_the_transcript_after_following_in_the_list_follows_there_and_again_stops() {
    let mut m = viewing(4);
    act(&mut m, Action::Follow);
    act(&mut m, Action::ToggleTranscript);
    act(&mut m, Action::Follow);
    assert!(
        m.viewer().unwrap().follow,
        "F in the other pane follows there"
    );
    assert!(
        m.app
            .status
            .clone()
            .unwrap()
            .text
            .contains("following the end")
    );
    act(&mut m, Action::Follow);
    assert!(!m.viewer().unwrap().follow, "F again stops");
}

#[test]
fn a_fork_the_agent_made_is_announced_and_the_marks_follow_their_messages() {
    let mut m = viewing(6);
    act(&mut m, Action::Home);
    for _ in 0..3 {
        act(&mut m, Action::Down);
    }
    act(&mut m, Action::Mark); // m2
    let req = follow_req(&disk(&mut m, &["a"], NOW));
    // The agent trimmed: a new context holding m2.. only.
    let raw = context(6).into_raw();
    let mut v = serde_json::Value::Object(raw);
    v["id"] = json!("ctx-fork-20261201");
    let messages = v["messages"].as_array_mut().unwrap();
    messages.drain(1..3); // m0, m1 go
    v["anchor_points"] = json!([["system_prompt", 1], ["tools", 1], ["messages", 5]]);
    let fork = Context::from_raw(
        v.as_object().unwrap().clone(),
        Path::new("/s/a/memory/f.json"),
    )
    .unwrap();
    let effects = followed(&mut m, req, fork);
    assert!(asks!(
        &effects,
        StoreOp::Viewer(ViewerOp::CountTokens { .. })
    ));
    assert!(
        m.app
            .status
            .clone()
            .unwrap()
            .text
            .contains("the agent forked the context")
    );
    let v = m.viewer().unwrap();
    let Some(EditState {
        drop_marks,
        kind: EditKind::Drop,
        ..
    }) = v.edit()
    else {
        panic!("the edit stays: {:?}", v.mode)
    };
    // m2 is now at index 1 (after the system prompt); the cursor, moved
    // on by the mark, stays on m3.
    assert_eq!(drop_marks.iter().copied().collect::<Vec<_>>(), vec![1]);
    assert_eq!(v.selected, 2);
}

#[test]
fn a_change_seen_while_a_trim_is_written_waits_for_its_answer() {
    let mut m = viewing(6);
    // The viewer waits for something else than its load.
    let viewer = viewer_mut(&mut m);
    viewer.waiting += 100;
    let effects = disk(&mut m, &["a"], NOW);
    assert!(!asks!(&effects, StoreOp::Viewer(ViewerOp::Follow { .. })));
    assert!(m.viewer().unwrap().dirty);
    // Another session's change is none of the viewer's business.
    let mut m = viewing(6);
    let effects = disk(&mut m, &["b"], NOW);
    assert!(!asks!(&effects, StoreOp::Viewer(ViewerOp::Follow { .. })));
}

/// The watcher names `record`'s session at `at`; the reread finds `record`.
fn reread_as(m: &mut Model, record: SessionRecord, at: f64) {
    let req = reread_req(&disk(m, &[record.id.as_str()], at));
    reread(m, req, vec![Reread::Present(Box::new(record))]);
}

#[test]
fn another_agents_session_back_from_the_trash_is_not_marked_live() {
    use crate::store::Agent;
    let mut m = listed(true);
    // A Claude Code session restored: on disk again, its last line 12 days old.
    let restored = SessionRecord {
        agent: Agent::Claude,
        ..record("restored", 12.0)
    };
    reread_as(&mut m, restored.clone(), NOW);
    let row = &m.list.rows[m.list.by_id["restored"]];
    assert_eq!(row.changed_at, None, "nobody is writing it");
    // The same session, its agent appending a line now: live.
    let written = SessionRecord {
        last_used_at: NOW + 59.0,
        ..restored
    };
    reread_as(&mut m, written, NOW + 60.0);
    let row = &m.list.rows[m.list.by_id["restored"]];
    assert_eq!(row.changed_at, Some(NOW + 60.0));
}
