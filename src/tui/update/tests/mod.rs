//! Transition tests: every mode and key path of `update`, with no I/O. Worker
//! replies are made up here and fed back as messages.

#[macro_use]
mod driver;

mod contexts;
mod dashboard;
mod dialogs;
mod edit;
mod finding;
mod following;
mod hosts;
mod input;
mod list;
mod message;
mod purge;
mod purge_agents;
mod resumable;
mod router;
mod search;
mod transcript;
mod trash;
mod viewer;

pub(super) use super::*;
pub(super) use crate::store::{
    Candidate, Context, ContextInfo, CreatedFrom, DeletedContext, EditFacts, Encoding, Fingerprint,
    PurgePolicy, PurgeProgress, PurgeReport, Relation, SessionRecord, SessionStats, StoreKind,
    Window,
};
pub(super) use crate::tui::finder::FindJob;
pub(super) use crate::tui::keymap;
pub(super) use crate::tui::matcher::MatcherJob;
pub(super) use crate::tui::model::{
    ConfirmAction, Exit, InputPurpose, Loaded, Preview, Screen, Settings, TrimKind, Viewer,
    ViewerMode,
};
pub(super) use crate::tui::ops::{
    DeleteCheck, ErrorKind, ListOp, ListReply, PurgeOp, PurgeReply, StoreOp, UiError, ViewerOp,
    ViewerReply,
};
pub(super) use crate::tui::searcher::SearchJob;
pub(super) use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
pub(super) use driver::{act, key, press, reply};
pub(super) use serde_json::json;
pub(super) use std::path::{Path, PathBuf};
pub(super) use std::sync::Arc;
pub(super) use tui_input::InputRequest;

pub(super) const NOW: f64 = 1_800_000_000.0;

/// The tag of a reply the screen does not check (the index's progress, a
/// new session): any tag is answered.
pub(super) const UNCHECKED: u64 = 0;

pub(super) fn settings(loki: bool) -> Settings {
    let store_kind = if loki {
        StoreKind::Loki
    } else {
        StoreKind::PeteosFolder
    };
    Settings {
        encoding: Encoding::Cl100kBase,
        window_tokens: 1000,
        policy: PurgePolicy {
            keep: 2,
            max_age_days: 30.0,
        },
        store_kind,
        display: Default::default(),
        watch: None,
        windows: Vec::new(),
        resume_check: Default::default(),
        looked_in: None,
        archive_due: None,
        hosts: Vec::new(),
        host_timeout: std::time::Duration::from_secs(20),
        open_hosts: Vec::new(),
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
        ..SessionRecord::default()
    }
}

/// A model with sessions a, b, c listed (a newest) and the scan done.
pub(super) fn listed(loki: bool) -> Model {
    let mut m = Model::new(settings(loki), NOW);
    let effects = init(&mut m);
    let [
        Effect::Matcher(MatcherJob::Reset),
        Effect::Store {
            req: scan,
            op: StoreOp::List(ListOp::Scan),
        },
        Effect::Store {
            op: StoreOp::List(ListOp::LoadIndexStats),
            ..
        },
        Effect::Store {
            op: StoreOp::List(ListOp::UpdateIndex),
            ..
        },
    ] = effects[..]
    else {
        panic!("{effects:?}")
    };
    let records = vec![record("a", 1.0), record("b", 2.0), record("c", 40.0)];
    let effects = reply(&mut m, scan, ListReply::SessionsBatch { records });
    let [
        Effect::Matcher(MatcherJob::Add(..)),
        Effect::Matcher(MatcherJob::Query { req: filter, .. }),
    ] = effects[..]
    else {
        panic!("{effects:?}")
    };
    reply(&mut m, scan, scan_done());
    reply(&mut m, filter, ranked(vec![0, 1, 2]));
    m
}

/// The list's scan ended, with no error.
pub(super) fn scan_done() -> ListReply {
    ListReply::ScanDone {
        folder: "/store/users/u/session".into(),
        error: None,
    }
}

/// The matcher's complete answer to an empty query: `rows` in that order.
pub(super) fn ranked(rows: Vec<usize>) -> ListReply {
    ListReply::Filtered {
        query: String::new(),
        rows,
        complete: true,
    }
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
    opened_on(context(n))
}

/// Session a opened on `ctx`, its edit facts read (as the worker answers
/// the load's `ReadEditFacts`), nothing counted yet; returns the effects of
/// the load but that one.
pub(super) fn opened_on(ctx: Context) -> (Model, Vec<Effect>) {
    opened_with(ctx, false)
}

/// [`opened_on`], the session owned by a running agent or not.
pub(super) fn opened_with(ctx: Context, agent_owned: bool) -> (Model, Vec<Effect>) {
    let mut m = listed(true);
    let req = only_store!(
        act(&mut m, Action::Open),
        StoreOp::Viewer(ViewerOp::LoadConversation { .. })
    );
    assert!(matches!(m.screen, Screen::Viewer(_)));
    let loaded = Loaded {
        facts: None,
        context: Arc::new(ctx),
        agent_owned,
        usage: None,
        notes: Vec::new(),
        recorded: None,
    };
    let mut effects = reply(
        &mut m,
        req,
        ViewerReply::ConversationLoaded { result: Ok(loaded) },
    );
    let at = effects
        .iter()
        .position(|e| {
            matches!(
                e,
                Effect::Store {
                    op: StoreOp::Viewer(ViewerOp::ReadEditFacts { .. }),
                    ..
                }
            )
        })
        .expect("the load asks for the edit facts");
    let (req, context) = only_store!(
        vec![effects.remove(at)],
        StoreOp::Viewer(ViewerOp::ReadEditFacts { context }) => context
    );
    let facts = Arc::new(EditFacts::new(&context));
    effects.extend(reply(&mut m, req, ViewerReply::EditFactsRead { facts }));
    (m, effects)
}

/// The viewer open on session a with a context of `n` messages, all counted (10 tokens each).
pub(super) fn viewing(n: usize) -> Model {
    let (mut m, effects) = opened(n);
    let req = viewer_req(&m);
    let asked = only_store!(
        effects,
        StoreOp::Viewer(ViewerOp::CountTokens {
            encoding: Encoding::Cl100kBase,
            ..
        })
    );
    assert_eq!(asked, req);
    reply(&mut m, req, tokens_counted(0, vec![10; n + 1]));
    m
}

/// The worker's cl100k counts of the messages from `start` on.
pub(super) fn tokens_counted(start: usize, counts: Vec<u64>) -> ViewerReply {
    ViewerReply::Counted {
        encoding: Encoding::Cl100kBase,
        start,
        counts,
    }
}

/// The request the open viewer waits for.
pub(super) fn viewer_req(m: &Model) -> u64 {
    m.viewer().expect("the viewer is open").waiting
}

/// The open viewer, to change.
pub(super) fn viewer_mut(m: &mut Model) -> &mut Viewer {
    match &mut m.screen {
        Screen::Viewer(viewer) => viewer,
        _ => panic!("the viewer is not open"),
    }
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
