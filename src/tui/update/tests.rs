//! Transition tests: every mode and key path of `update`, with no I/O. Worker
//! replies are made up here and fed back as messages.

use super::*;
use crate::store::Encoding;
use crate::store::peteos::Context;
use crate::store::purge_apply::{PurgeProgress, PurgeReport};
use crate::store::purge_plan::{Candidate, Fingerprint, PurgePolicy};
use crate::store::record::{SessionRecord, SessionStats};
use crate::store::trim::TrimRequest;
use crate::tui::keymap;
use crate::tui::model::{
    ConfirmAction, Exit, InputPurpose, Loaded, Mode, Preview, Settings, TrimKind,
};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const NOW: f64 = 1_800_000_000.0;

fn settings(loki: bool) -> Settings {
    Settings {
        encoding: Encoding::Cl100kBase,
        window_tokens: 1000,
        policy: PurgePolicy {
            keep: 2,
            max_age_days: 30.0,
        },
        loki,
    }
}

fn record(id: &str, days_ago: f64) -> SessionRecord {
    SessionRecord {
        id: id.into(),
        name: format!("name-{id}"),
        user: "u".into(),
        first_prompt: format!("prompt {id}"),
        created_at: NOW - 90.0 * 86_400.0,
        last_used_at: NOW - days_ago * 86_400.0,
        path: PathBuf::from(format!("/s/{id}")),
        conversation_dir: PathBuf::from(format!("/s/{id}/memory")),
        error: None,
    }
}

/// A model with sessions a, b, c listed (a newest) and the scan done.
fn listed(loki: bool) -> Model {
    let mut m = Model::new(settings(loki), NOW);
    let effects = init(&mut m);
    assert!(matches!(
        effects.as_slice(),
        [Effect::ResetSearch, Effect::Scan { req: 1 }]
    ));
    let records = vec![record("a", 1.0), record("b", 2.0), record("c", 40.0)];
    let effects = update(&mut m, Msg::SessionsBatch { req: 1, records });
    assert!(matches!(
        effects.as_slice(),
        [Effect::IndexForSearch { .. }, Effect::Filter { req: 1, .. }]
    ));
    update(
        &mut m,
        Msg::ScanDone {
            req: 1,
            error: None,
        },
    );
    update(
        &mut m,
        Msg::Filtered {
            req: 1,
            query: String::new(),
            rows: vec![0, 1, 2],
            complete: true,
        },
    );
    m
}

fn act(m: &mut Model, action: Action) -> Vec<Effect> {
    update(m, Msg::Action(action))
}

fn key(m: &Model, code: KeyCode) -> Option<Msg> {
    keymap::to_msg(m, KeyEvent::new(code, KeyModifiers::NONE))
}

fn context(n: usize) -> Context {
    let mut messages = vec![
        json!({"id": "sys", "_type": "SystemPromptMessage", "role": "system", "_sequence_number": 3,
        "content": [{"type": "text", "text": "be careful"}]}),
    ];
    for i in 0..n {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        messages.push(
            json!({"id": format!("m{i}"), "role": role, "_sequence_number": 4 + i,
            "content": [{"type": "text", "text": format!("message {i}")}]}),
        );
    }
    let v = json!({"id": "ctx", "messages": messages, "_mutation_counter": 4 + n,
        "anchor_points": [["system_prompt", 1], ["tools", 1], ["messages", n + 1]],
        "system_prompt_message_id": "sys"});
    Context::from_raw(
        v.as_object().unwrap().clone(),
        Path::new("/s/a/memory/ctx.json"),
    )
    .unwrap()
}

/// The viewer open on session a with a context of `n` messages, all counted (10 tokens each).
fn viewing(n: usize) -> Model {
    let mut m = listed(true);
    let effects = act(&mut m, Action::Open);
    assert!(matches!(
        effects.as_slice(),
        [Effect::LoadConversation { req: 1, .. }]
    ));
    assert_eq!(m.mode, Mode::Viewer);
    let ctx = context(n);
    let loaded = Loaded {
        window: Arc::new(crate::store::peteos::window::WindowIndex::new(&ctx)),
        context: Arc::new(ctx),
        contexts: vec![],
    };
    let effects = update(
        &mut m,
        Msg::ConversationLoaded {
            req: 1,
            result: Ok(loaded),
        },
    );
    assert!(matches!(
        effects.as_slice(),
        [Effect::CountTokens {
            req: 1,
            encoding: Encoding::Cl100kBase,
            ..
        }]
    ));
    update(
        &mut m,
        Msg::Counted {
            req: 1,
            encoding: Encoding::Cl100kBase,
            start: 0,
            counts: vec![10; n + 1],
        },
    );
    m
}

#[test]
fn scan_batches_filter_and_stale_replies() {
    let mut m = listed(true);
    assert_eq!(m.list.visible, vec![0, 1, 2]);
    // A reply to an old scan or an old query is dropped.
    update(
        &mut m,
        Msg::SessionsBatch {
            req: 0,
            records: vec![record("x", 0.0)],
        },
    );
    assert_eq!(m.list.rows.len(), 3);
    update(
        &mut m,
        Msg::Filtered {
            req: 0,
            query: "zz".into(),
            rows: vec![],
            complete: true,
        },
    );
    assert_eq!(m.list.visible, vec![0, 1, 2]);
    // Typing asks the matcher; only the newest answer counts.
    let effects = update(&mut m, Msg::Type('b'));
    assert!(matches!(&effects[..], [Effect::Filter { req: 2, query }] if query == "b"));
    update(&mut m, Msg::Type('x'));
    update(
        &mut m,
        Msg::Filtered {
            req: 2,
            query: "b".into(),
            rows: vec![1],
            complete: true,
        },
    );
    assert_eq!(m.list.visible, vec![0, 1, 2], "superseded by req 3");
    update(
        &mut m,
        Msg::Filtered {
            req: 3,
            query: "bx".into(),
            rows: vec![],
            complete: true,
        },
    );
    assert!(m.list.visible.is_empty());
    let effects = act(&mut m, Action::Backspace);
    assert!(matches!(&effects[..], [Effect::Filter { query, .. }] if query == "b"));
}

#[test]
fn moving_asks_for_preview_and_stats_once() {
    let mut m = listed(true);
    let effects = act(&mut m, Action::Down);
    assert_eq!(m.list.selected, 1);
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::LoadPreview { record, .. } if record.id == "b"))
    );
    let req = m.requests.preview;
    update(
        &mut m,
        Msg::PreviewLoaded {
            req,
            preview: Preview {
                id: "b".into(),
                last_messages: Ok(vec![]),
            },
        },
    );
    assert!(m.list.preview.is_some());
    let effects = act(&mut m, Action::End);
    assert_eq!(m.list.selected, 2);
    assert!(
        !effects.iter().any(|e| matches!(e, Effect::Stats { .. })),
        "stats were asked for already"
    );
    act(&mut m, Action::Down);
    assert_eq!(m.list.selected, 2, "clamped at the end");
    act(&mut m, Action::Home);
    assert_eq!(m.list.selected, 0);
    act(&mut m, Action::PageDown);
    assert_eq!(m.list.selected, 2);
    let req = m.requests.stats;
    update(
        &mut m,
        Msg::Stats {
            req,
            stats: vec![(
                0,
                SessionStats {
                    bytes: 5,
                    ..Default::default()
                },
            )],
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
    assert_eq!(m.list.query, "");
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
    assert!(matches!(&effects[..], [Effect::Resume { record }] if record.id == "a"));
    update(
        &mut m,
        Msg::Resumed {
            result: Ok(record("a", 0.0)),
        },
    );
    assert!(matches!(&m.exit, Some(Exit::Resume(r)) if r.id == "a"));

    let mut m = listed(true);
    m.list.rows[0].record.error = Some("bad meta".into());
    assert!(act(&mut m, Action::Resume).is_empty());
    assert!(m.status.as_ref().unwrap().is_error);
    assert_eq!(m.exit, None);
}

#[test]
fn keymap_depends_on_the_screen() {
    let m = listed(true);
    assert!(
        matches!(key(&m, KeyCode::Char('q')), Some(Msg::Type('q'))),
        "typing filters in the list"
    );
    assert!(matches!(
        key(&m, KeyCode::Char('?')),
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
    assert!(key(&v, KeyCode::Char('x')).is_none());
    let release = KeyEvent {
        kind: crossterm::event::KeyEventKind::Release,
        ..KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)
    };
    assert!(keymap::to_msg(&v, release).is_none(), "only presses count");
}

#[test]
fn help_overlay_opens_and_closes() {
    let mut m = listed(true);
    act(&mut m, Action::Help);
    assert_eq!(m.overlay, Some(Overlay::Help));
    assert_eq!(keymap::scope(&m), keymap::Scope::Help);
    act(&mut m, Action::Down);
    assert_eq!(
        m.list.selected, 0,
        "keys do not reach the list under the help"
    );
    act(&mut m, Action::Back);
    assert_eq!(m.overlay, None);
    assert!(!keymap::help_lines(keymap::Scope::List).is_empty());
}

#[test]
fn viewer_counts_arrive_live_and_encoding_toggles_with_a_cache() {
    let mut m = listed(true);
    act(&mut m, Action::Open);
    let ctx = context(3);
    let loaded = Loaded {
        window: Arc::new(crate::store::peteos::window::WindowIndex::new(&ctx)),
        context: Arc::new(ctx),
        contexts: vec![],
    };
    update(
        &mut m,
        Msg::ConversationLoaded {
            req: 1,
            result: Ok(loaded),
        },
    );
    update(
        &mut m,
        Msg::Counted {
            req: 1,
            encoding: Encoding::Cl100kBase,
            start: 2,
            counts: vec![7, 8],
        },
    );
    let v = m.viewer.as_ref().unwrap();
    assert_eq!(
        v.counts[&Encoding::Cl100kBase],
        vec![None, None, Some(7), Some(8)]
    );
    assert_eq!(v.selected, 3, "opens at the newest message");
    update(
        &mut m,
        Msg::Counted {
            req: 0,
            encoding: Encoding::Cl100kBase,
            start: 0,
            counts: vec![1, 1],
        },
    );
    assert_eq!(
        m.viewer.as_ref().unwrap().counts[&Encoding::Cl100kBase][0],
        None,
        "stale"
    );
    let effects = act(&mut m, Action::ToggleEncoding);
    assert!(matches!(
        &effects[..],
        [Effect::CountTokens {
            encoding: Encoding::O200kBase,
            ..
        }]
    ));
    let effects = act(&mut m, Action::ToggleEncoding);
    assert!(effects.is_empty(), "cl100k counts are cached");
    act(&mut m, Action::Up);
    assert_eq!(m.viewer.as_ref().unwrap().selected, 2);
    act(&mut m, Action::DetailDown);
    assert_eq!(m.viewer.as_ref().unwrap().detail_scroll, 3);
    let effects = act(&mut m, Action::Back);
    assert_eq!(m.mode, Mode::List);
    assert!(m.viewer.is_none());
    assert!(
        effects
            .iter()
            .all(|e| !matches!(e, Effect::LoadConversation { .. }))
    );
}

#[test]
fn a_failed_load_is_shown() {
    let mut m = listed(true);
    act(&mut m, Action::Open);
    update(
        &mut m,
        Msg::ConversationLoaded {
            req: 1,
            result: Err("cannot parse x.json".into()),
        },
    );
    assert_eq!(
        m.viewer.as_ref().unwrap().error.as_deref(),
        Some("cannot parse x.json")
    );
}

#[test]
fn trim_keep_last_previews_adjusts_and_applies() {
    let mut m = viewing(30);
    act(&mut m, Action::TrimKeepLast);
    let trim = m.viewer.as_ref().unwrap().trim.clone().unwrap();
    assert_eq!((trim.kind, trim.value), (TrimKind::KeepLast, 20));
    let plan = trim.plan.unwrap();
    assert_eq!(plan.kept.len(), 21, "20 + the system prompt");
    assert_eq!(plan.tokens_after, 210);
    act(&mut m, Action::Less);
    assert_eq!(
        m.viewer
            .as_ref()
            .unwrap()
            .trim
            .as_ref()
            .unwrap()
            .plan
            .as_ref()
            .unwrap()
            .kept
            .len(),
        20
    );
    update(&mut m, Msg::Type('5'));
    let trim = m.viewer.as_ref().unwrap().trim.clone().unwrap();
    assert_eq!(trim.value, 5);
    assert_eq!(trim.plan.as_ref().unwrap().dropped.len(), 25);
    act(&mut m, Action::Backspace);
    assert_eq!(m.viewer.as_ref().unwrap().trim.as_ref().unwrap().value, 0);
    update(&mut m, Msg::Type('6'));
    let effects = act(&mut m, Action::Confirm);
    let [
        Effect::ApplyTrim {
            req,
            request,
            expected,
            ..
        },
    ] = &effects[..]
    else {
        panic!("{effects:?}")
    };
    assert_eq!(*request, TrimRequest::KeepMessages(6));
    assert_eq!(
        (expected.context_id.as_str(), expected.mutation_counter),
        ("ctx", 34)
    );
    let req = *req;
    assert!(m.viewer.as_ref().unwrap().trim.as_ref().unwrap().applying);
    assert!(
        act(&mut m, Action::More).is_empty(),
        "ignored while applying"
    );
    let effects = update(
        &mut m,
        Msg::Trimmed {
            req,
            result: Ok(Some("child".into())),
        },
    );
    assert!(matches!(&effects[..], [Effect::LoadConversation { .. }]));
    assert!(m.viewer.as_ref().unwrap().trim.is_none());
}

#[test]
fn trim_budget_cancel_and_refusal() {
    let mut m = viewing(30);
    act(&mut m, Action::TrimBudget);
    let trim = m.viewer.as_ref().unwrap().trim.clone().unwrap();
    assert_eq!(trim.kind, TrimKind::Budget);
    assert_eq!(trim.value, 232, "three quarters of 310 tokens");
    assert!(trim.plan.as_ref().unwrap().tokens_after <= 232);
    act(&mut m, Action::More);
    assert_eq!(
        m.viewer.as_ref().unwrap().trim.as_ref().unwrap().value,
        1232
    );
    assert!(
        !m.viewer
            .as_ref()
            .unwrap()
            .trim
            .as_ref()
            .unwrap()
            .plan
            .as_ref()
            .unwrap()
            .changed
    );
    assert!(act(&mut m, Action::Confirm).is_empty(), "nothing to trim");
    act(&mut m, Action::Back);
    assert!(
        m.viewer.as_ref().unwrap().trim.is_none(),
        "Esc cancels, nothing written"
    );
    // A refusal from the store (the session changed) is shown and the trim stays.
    act(&mut m, Action::TrimKeepLast);
    let effects = act(&mut m, Action::Confirm);
    let [Effect::ApplyTrim { req, .. }] = &effects[..] else {
        panic!()
    };
    let req = *req;
    update(
        &mut m,
        Msg::Trimmed {
            req,
            result: Err("changed since the preview".into()),
        },
    );
    assert!(m.status.as_ref().unwrap().is_error);
    assert!(!m.viewer.as_ref().unwrap().trim.as_ref().unwrap().applying);
}

#[test]
fn trim_waits_for_counts() {
    let mut m = listed(true);
    act(&mut m, Action::Open);
    let ctx = context(5);
    let loaded = Loaded {
        window: Arc::new(crate::store::peteos::window::WindowIndex::new(&ctx)),
        context: Arc::new(ctx),
        contexts: vec![],
    };
    update(
        &mut m,
        Msg::ConversationLoaded {
            req: 1,
            result: Ok(loaded),
        },
    );
    act(&mut m, Action::TrimKeepLast);
    assert!(
        m.viewer
            .as_ref()
            .unwrap()
            .trim
            .as_ref()
            .unwrap()
            .plan
            .is_none()
    );
    assert!(act(&mut m, Action::Confirm).is_empty());
    update(
        &mut m,
        Msg::Counted {
            req: 1,
            encoding: Encoding::Cl100kBase,
            start: 0,
            counts: vec![1; 6],
        },
    );
    assert!(
        m.viewer
            .as_ref()
            .unwrap()
            .trim
            .as_ref()
            .unwrap()
            .plan
            .is_some(),
        "planned when counts complete"
    );
}

#[test]
fn contexts_switch_back_is_the_undo() {
    let mut m = viewing(3);
    let v = m.viewer.as_mut().unwrap();
    let loaded = v.loaded.as_mut().unwrap();
    loaded.contexts = vec![
        crate::tui::model::ContextInfo {
            id: "ctx".into(),
            messages: Some(4),
            origin: Some("parent".into()),
            error: None,
        },
        crate::tui::model::ContextInfo {
            id: "parent".into(),
            messages: Some(40),
            origin: None,
            error: None,
        },
    ];
    act(&mut m, Action::Contexts);
    assert_eq!(m.viewer.as_ref().unwrap().contexts_cursor, Some(0));
    assert_eq!(keymap::scope(&m), keymap::Scope::Contexts);
    act(&mut m, Action::Down);
    let effects = act(&mut m, Action::Confirm);
    let [
        Effect::SwitchContext {
            req, context_id, ..
        },
    ] = &effects[..]
    else {
        panic!("{effects:?}")
    };
    assert_eq!(context_id, "parent");
    let req = *req;
    let effects = update(
        &mut m,
        Msg::Switched {
            req,
            result: Ok("parent".into()),
        },
    );
    assert!(matches!(&effects[..], [Effect::LoadConversation { .. }]));
    act(&mut m, Action::Contexts);
    act(&mut m, Action::Back);
    assert_eq!(m.viewer.as_ref().unwrap().contexts_cursor, None);
}

fn candidate(r: SessionRecord) -> Candidate {
    Candidate {
        record: r,
        bytes: 100,
        is_active: false,
        locked: false,
        unreadable_conversation: None,
        crosses_filesystems: false,
        fingerprint: Fingerprint::default(),
    }
}

#[test]
fn purge_preview_replans_live_and_confirms_with_no_as_default() {
    let mut m = listed(true);
    let effects = act(&mut m, Action::PurgePreview);
    assert_eq!(m.mode, Mode::Purge);
    let [Effect::GatherPurge { req }] = &effects[..] else {
        panic!()
    };
    let req = *req;
    let candidates = vec![
        candidate(record("a", 1.0)),
        candidate(record("b", 2.0)),
        candidate(record("c", 40.0)),
    ];
    update(
        &mut m,
        Msg::PurgeGathered {
            req,
            result: Ok(Arc::new(candidates)),
        },
    );
    assert_eq!(
        m.purge.plan.as_ref().unwrap().removals().count(),
        1,
        "c is stale"
    );
    act(&mut m, Action::KeepLess);
    assert_eq!(m.settings.policy.keep, 1);
    assert_eq!(
        m.purge.plan.as_ref().unwrap().removals().count(),
        2,
        "b is beyond keep now"
    );
    act(&mut m, Action::AgeMore);
    assert_eq!(m.settings.policy.max_age_days, 37.0);
    act(&mut m, Action::AgeLess);
    act(&mut m, Action::Confirm);
    assert!(matches!(&m.overlay, Some(Overlay::Confirm(c)) if c.action == ConfirmAction::Purge));
    // Enter means No.
    assert!(matches!(
        key(&m, KeyCode::Enter),
        Some(Msg::Action(Action::No))
    ));
    act(&mut m, Action::No);
    assert_eq!(m.overlay, None);
    assert!(m.purge.applying.is_none());
    act(&mut m, Action::Confirm);
    act(&mut m, Action::Down);
    assert!(m.overlay.is_some(), "other keys leave the question open");
    let effects = act(&mut m, Action::Yes);
    let [Effect::ApplyPurge { req, plan }] = &effects[..] else {
        panic!()
    };
    assert_eq!(plan.removals().count(), 2);
    let req = *req;
    update(
        &mut m,
        Msg::PurgeProgress {
            req,
            progress: PurgeProgress {
                done: 1,
                total: 2,
                id: "b".into(),
            },
        },
    );
    assert_eq!(m.purge.applying, Some((1, 2)));
    assert!(
        act(&mut m, Action::Back).is_empty() && m.mode == Mode::Purge,
        "waits while deleting"
    );
    let report = PurgeReport {
        removed: vec!["b".into(), "c".into()],
        bytes_freed: 200,
        ..Default::default()
    };
    let effects = update(
        &mut m,
        Msg::PurgeDone {
            req,
            result: Ok(report),
        },
    );
    assert!(effects.iter().any(|e| matches!(e, Effect::Scan { .. })));
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::GatherPurge { .. }))
    );
    assert!(
        m.status
            .as_ref()
            .unwrap()
            .text
            .contains("removed 2 sessions")
    );
    act(&mut m, Action::Back);
    assert_eq!(m.mode, Mode::List);
}

#[test]
fn delete_asks_then_deletes_one_session() {
    let mut m = listed(true);
    act(&mut m, Action::Down);
    act(&mut m, Action::Delete);
    assert!(
        matches!(&m.overlay, Some(Overlay::Confirm(c)) if c.action == ConfirmAction::Delete { id: "b".into() })
    );
    act(&mut m, Action::No);
    assert_eq!(m.overlay, None);
    act(&mut m, Action::Delete);
    let effects = act(&mut m, Action::Yes);
    assert!(matches!(&effects[..], [Effect::DeleteSession { record, .. }] if record.id == "b"));
}

#[test]
fn new_and_rename_use_text_fields() {
    let mut m = listed(false);
    assert!(act(&mut m, Action::NewSession).is_empty());
    assert!(
        m.status.as_ref().unwrap().is_error,
        "peteos folders cannot make sessions"
    );
    assert!(act(&mut m, Action::Rename).is_empty());

    let mut m = listed(true);
    act(&mut m, Action::NewSession);
    assert_eq!(keymap::scope(&m), keymap::Scope::Input);
    for c in "Fix it".chars() {
        update(&mut m, Msg::Type(c));
    }
    act(&mut m, Action::Backspace);
    let effects = act(&mut m, Action::Confirm);
    assert!(matches!(&effects[..], [Effect::CreateSession { prompt }] if prompt == "Fix i"));
    let effects = update(
        &mut m,
        Msg::Created {
            result: Ok(record("new", 0.0)),
        },
    );
    assert!(effects.iter().any(|e| matches!(e, Effect::Scan { .. })));
    assert_eq!(m.pending_select.as_deref(), Some("new"));

    let mut m = listed(true);
    act(&mut m, Action::Rename);
    assert!(
        matches!(&m.overlay, Some(Overlay::Input(i)) if i.text == "name-a" && i.purpose == InputPurpose::Rename { id: "a".into() })
    );
    for _ in 0..6 {
        act(&mut m, Action::Backspace);
    }
    assert!(
        act(&mut m, Action::Confirm).is_empty(),
        "empty names are refused"
    );
    update(&mut m, Msg::Type('z'));
    let effects = act(&mut m, Action::Confirm);
    assert!(
        matches!(&effects[..], [Effect::RenameSession { id, name }] if id == "a" && name == "z")
    );
    let mut renamed = record("a", 1.0);
    renamed.name = "z".into();
    update(
        &mut m,
        Msg::Renamed {
            result: Ok(renamed),
        },
    );
    assert_eq!(m.list.rows[0].record.name, "z");
    act(&mut m, Action::NewSession);
    act(&mut m, Action::Back);
    assert_eq!(m.overlay, None);
}

#[test]
fn refresh_keeps_the_selection() {
    let mut m = listed(true);
    act(&mut m, Action::Down);
    let effects = act(&mut m, Action::Refresh);
    assert!(matches!(
        &effects[..],
        [Effect::ResetSearch, Effect::Scan { req: 2 }]
    ));
    update(
        &mut m,
        Msg::SessionsBatch {
            req: 2,
            records: vec![record("a", 1.0), record("b", 2.0)],
        },
    );
    let req = m.requests.filter;
    update(
        &mut m,
        Msg::Filtered {
            req,
            query: String::new(),
            rows: vec![0, 1],
            complete: true,
        },
    );
    assert_eq!(m.selected_row().unwrap().record.id, "b");
    update(&mut m, Msg::Resize(100, 40));
    assert_eq!(m.screen, (100, 40));
    update(&mut m, Msg::Tick(NOW + 5.0));
    assert_eq!(m.now, NOW + 5.0);
}
