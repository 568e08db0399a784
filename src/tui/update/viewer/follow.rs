//! The viewer following its session on disk. When the watcher names the
//! open session, its conversation is read again (`ViewerOp::Follow`) as
//! soon as the viewer waits for nothing else (a write of its own, say).
//! Messages appended keep everything on screen: the counts already made
//! (only the new messages are counted), the selection, the marks, a trim
//! or an edit in preparation, which is planned again on the new counts
//! (Enter never applies a plan made before the agent wrote: the plan on
//! screen is re-made, and the store's `Expected` check stays the last
//! word). A fork the agent made (a peteos window trim, a compaction) or a
//! context rewritten in place is announced and shown instead, with the
//! selection and the marks kept on the messages that are still there.
//! `F` follows the end as `less +F` does; scrolling up stops it.

use super::transcript;
use crate::store::{Context, StoreEvent};
use crate::tui::effect::Effect;
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{App, EditState, Loaded, TrimState, Viewer, ViewerMode};
use crate::tui::msg::Action;
use crate::tui::ops::{UiError, ViewerOp};
use std::collections::BTreeSet;

/// What the watcher saw; the viewer reads its session again if it is one
/// of those that changed.
pub fn on_disk(viewer: &mut Viewer, app: &mut App, event: &StoreEvent) -> Vec<Effect> {
    let touched = match event {
        StoreEvent::Sessions(sessions) => sessions
            .iter()
            .any(|s| s.id == viewer.record.id && s.path == viewer.record.path),
        StoreEvent::Everything | StoreEvent::FolderBack(_) => true,
        StoreEvent::Mode(_) | StoreEvent::FolderGone(_) => false,
    };
    if touched {
        viewer.dirty = true;
    }
    maybe_follow(viewer, app)
}

/// Reads the session again if it changed and the viewer waits for nothing.
pub fn maybe_follow(viewer: &mut Viewer, app: &mut App) -> Vec<Effect> {
    let loading = viewer.loaded.is_none() && viewer.error.is_none();
    // A side conversation shown is not the session's own to follow.
    if !viewer.dirty || loading || viewer.waiting != viewer.loaded_req || viewer.side.is_some() {
        return Vec::new();
    }
    viewer.dirty = false;
    viewer.waiting = app.request();
    vec![Effect::store(
        viewer.waiting,
        ViewerOp::Follow {
            record: viewer.record.clone(),
        },
    )]
}

/// True when `new` is `old` with messages appended (or the same messages).
fn appended(old: &Context, new: &Context) -> bool {
    old.id() == new.id()
        && new.len() >= old.len()
        && old
            .messages()
            .zip(new.messages())
            .all(|(a, b)| a.raw() == b.raw())
}

/// The conversation read again after a change.
pub fn on_followed(
    viewer: &mut Viewer,
    app: &mut App,
    req: u64,
    result: Result<Loaded, UiError>,
) -> Vec<Effect> {
    viewer.loaded_req = req;
    let new = match result {
        Ok(new) => new,
        Err(e) => {
            // What is on screen stays; the reason shows.
            app.complain(format!(
                "the session changed on disk and could not be read again: {e}"
            ));
            return Vec::new();
        }
    };
    match &viewer.loaded {
        Some(old) if appended(&old.context, &new.context) => append(viewer, app, req, new),
        Some(_) => replace(viewer, app, req, new),
        None => super::on_loaded(viewer, app, req, Ok(new)),
    }
}

/// Messages were appended: everything on screen stays, the new messages
/// are counted, the edit facts read again, the plan on screen re-made.
fn append(viewer: &mut Viewer, app: &mut App, req: u64, new: Loaded) -> Vec<Effect> {
    let encoding = app.settings.encoding;
    let len = new.len();
    let grew = viewer.loaded.as_ref().map_or(0, Loaded::len) < len;
    // Counts of the other encoding would be short of the new messages.
    viewer.counts.retain(|e, _| *e == encoding);
    let counts = viewer.counts.entry(encoding).or_default();
    counts.resize(len, None);
    let from = counts.iter().position(Option::is_none).unwrap_or(len);
    viewer.cleared.clear();
    viewer.pending.cleared = None;
    viewer.replaced.clear();
    viewer.pending.replaced = None;
    let context = new.context.clone();
    viewer.loaded = Some(Loaded { facts: None, ..new });
    viewer.error = None;
    if viewer.follow && grew {
        viewer.selected = len.saturating_sub(1);
        viewer.detail_scroll = 0;
    }
    let follow = viewer.follow;
    if let (ViewerMode::Transcript(view), Some(loaded)) = (&mut viewer.mode, &viewer.loaded) {
        let mut doc = transcript::Doc {
            context: &loaded.context,
            selected: &mut viewer.selected,
        };
        transcript::grow(view, &mut doc, app, follow && grew);
    }
    viewer.pending.facts = req;
    let mut effects = Vec::new();
    if from < len {
        effects.push(Effect::store(
            req,
            ViewerOp::CountAppended {
                context: context.clone(),
                from,
                encoding,
            },
        ));
    }
    effects.push(Effect::store(req, ViewerOp::ReadEditFacts { context }));
    // The plan on screen was made before the agent wrote: it goes, and is
    // made again once the new messages are counted and the facts read.
    match &mut viewer.mode {
        ViewerMode::Trim(trim) => trim.plan = None,
        ViewerMode::Edit(edit) => edit.plan = None,
        _ => {}
    }
    effects.extend(super::replan(viewer, app));
    effects
}

/// What a person had on screen, by message id, to keep across a reload.
struct Kept {
    selected: Option<String>,
    mode: ViewerMode,
    drop_marks: Vec<String>,
    clear_marks: Vec<String>,
}

fn ids(context: &Context, marks: &BTreeSet<usize>) -> Vec<String> {
    marks
        .iter()
        .filter_map(|&i| context.message(i).map(|m| m.id().to_string()))
        .collect()
}

fn indices(context: &Context, ids: &[String]) -> BTreeSet<usize> {
    context
        .messages()
        .enumerate()
        .filter(|(_, m)| ids.iter().any(|id| id == m.id()))
        .map(|(i, _)| i)
        .collect()
}

/// A fork the agent made, or the context rewritten in place: shown
/// afresh, the selection, the marks and the panel kept where they can be.
fn replace(viewer: &mut Viewer, app: &mut App, req: u64, new: Loaded) -> Vec<Effect> {
    let Some(old) = viewer.loaded.as_ref().map(|l| l.context.clone()) else {
        return super::on_loaded(viewer, app, req, Ok(new));
    };
    let old_id = old.id().to_string();
    let new_id = new.context.id().to_string();
    let mode = std::mem::replace(&mut viewer.mode, ViewerMode::Browse);
    let (drop_marks, clear_marks) = match &mode {
        ViewerMode::Edit(edit) => (ids(&old, &edit.drop_marks), ids(&old, &edit.clear_marks)),
        _ => (Vec::new(), Vec::new()),
    };
    let kept = Kept {
        selected: old.message(viewer.selected).map(|m| m.id().to_string()),
        mode,
        drop_marks,
        clear_marks,
    };
    let marked = kept.drop_marks.len() + kept.clear_marks.len();
    let effects = super::on_loaded(viewer, app, req, Ok(new));
    let Some(loaded) = viewer.loaded.as_ref() else {
        return effects;
    };
    let context = loaded.context.clone();
    if !viewer.follow
        && let Some(i) = kept
            .selected
            .as_ref()
            .and_then(|id| context.messages().position(|m| m.id() == id))
    {
        viewer.selected = i;
    }
    let mut lost = 0;
    viewer.mode = match kept.mode {
        ViewerMode::Trim(trim) => ViewerMode::Trim(TrimState {
            plan: None,
            applying: false,
            ..trim
        }),
        ViewerMode::Edit(edit) => {
            let drop_marks = indices(&context, &kept.drop_marks);
            let clear_marks = indices(&context, &kept.clear_marks);
            lost = marked - drop_marks.len() - clear_marks.len();
            ViewerMode::Edit(Box::new(EditState {
                drop_marks,
                clear_marks,
                last_mark: None,
                plan: None,
                applying: false,
                ..*edit
            }))
        }
        ViewerMode::Transcript(_) => {
            let doc = transcript::Doc {
                context: &context,
                selected: &mut viewer.selected,
            };
            ViewerMode::Transcript(Box::new(transcript::open(doc, app)))
        }
        ViewerMode::Breakdown => ViewerMode::Breakdown,
        ViewerMode::Browse | ViewerMode::Contexts(_) | ViewerMode::Message(_) => ViewerMode::Browse,
    };
    let mut text = if old_id != new_id {
        format!(
            "the agent forked the context ({} → {}); showing the new one",
            short(&old_id),
            short(&new_id)
        )
    } else {
        "the context was rewritten on disk; read again".to_string()
    };
    if lost > 0 {
        text.push_str(&format!(
            "; {} no longer there",
            crate::humanize::plural(lost as u64, "marked message")
        ));
    }
    app.say(text);
    effects
}

fn short(id: &str) -> &str {
    // A date and the first group of the uuid: `20261201-3f0c2a9e`.
    id.get(..17).unwrap_or(id)
}

/// `F`: follow the end, or stop.
pub fn toggle(viewer: &mut Viewer, app: &mut App) {
    let key = keymap::key_for(Scope::Viewer, Action::Follow);
    let in_transcript = matches!(viewer.mode, ViewerMode::Transcript(_));
    // Following began in the other pane: `F` here follows here too.
    let elsewhere = viewer.follow && viewer.follow_in_transcript != in_transcript;
    viewer.follow = !viewer.follow || elsewhere;
    viewer.follow_in_transcript = in_transcript;
    if !viewer.follow {
        app.say(format!("stopped following the end ({key} follows again)"));
        return;
    }
    let len = viewer.loaded.as_ref().map_or(0, Loaded::len);
    viewer.selected = len.saturating_sub(1);
    viewer.detail_scroll = 0;
    if let (ViewerMode::Transcript(view), Some(loaded)) = (&mut viewer.mode, &viewer.loaded) {
        let mut doc = transcript::Doc {
            context: &loaded.context,
            selected: &mut viewer.selected,
        };
        transcript::grow(view, &mut doc, app, true);
    }
    app.say(format!(
        "following the end as the agent writes (scrolling up or {key} stops)"
    ));
}

/// A move up stops following the end, as scrolling back does in `less +F`.
pub fn stop_on_move_up(viewer: &mut Viewer, app: &mut App, action: Action) {
    let up = matches!(
        action,
        Action::Up | Action::PageUp | Action::HalfPageUp | Action::Home | Action::PrevMessage
    );
    if viewer.follow && up {
        viewer.follow = false;
        let key = keymap::key_for(Scope::Viewer, Action::Follow);
        app.say(format!("stopped following the end ({key} follows again)"));
    }
}
