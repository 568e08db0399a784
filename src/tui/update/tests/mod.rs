//! Transition tests: every mode and key path of `update`, with no I/O. Worker
//! replies are made up here and fed back as messages.

mod dialogs;
mod list;
mod purge;
mod viewer;

pub(super) use super::*;
pub(super) use crate::store::Encoding;
pub(super) use crate::store::peteos::Context;
pub(super) use crate::store::purge_apply::{PurgeProgress, PurgeReport};
pub(super) use crate::store::purge_plan::{Candidate, Fingerprint, PurgePolicy};
pub(super) use crate::store::record::{SessionRecord, SessionStats};
pub(super) use crate::store::trim::TrimRequest;
pub(super) use crate::tui::keymap;
pub(super) use crate::tui::model::{
    ConfirmAction, Exit, InputPurpose, Loaded, Mode, Preview, Settings, TrimKind,
};
pub(super) use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
pub(super) use serde_json::json;
pub(super) use std::path::{Path, PathBuf};
pub(super) use std::sync::Arc;

pub(super) const NOW: f64 = 1_800_000_000.0;

pub(super) fn settings(loki: bool) -> Settings {
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

pub(super) fn record(id: &str, days_ago: f64) -> SessionRecord {
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
pub(super) fn listed(loki: bool) -> Model {
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

pub(super) fn act(m: &mut Model, action: Action) -> Vec<Effect> {
    update(m, Msg::Action(action))
}

pub(super) fn key(m: &Model, code: KeyCode) -> Option<Msg> {
    keymap::to_msg(m, KeyEvent::new(code, KeyModifiers::NONE))
}

pub(super) fn context(n: usize) -> Context {
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

/// Session a opened and its context of `n` messages (plus a system prompt)
/// loaded, nothing counted yet; returns the effects of the load.
pub(super) fn opened(n: usize) -> (Model, Vec<Effect>) {
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
    (m, effects)
}

/// The viewer open on session a with a context of `n` messages, all counted (10 tokens each).
pub(super) fn viewing(n: usize) -> Model {
    let (mut m, effects) = opened(n);
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

pub(super) fn candidate(r: SessionRecord) -> Candidate {
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
