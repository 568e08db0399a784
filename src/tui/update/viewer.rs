//! The context viewer: messages with live token counts, encodings, forks,
//! and its sub-modes (adjusting a trim, an edit by hand, where the tokens
//! go, managing the contexts, reading one message full screen), which it
//! owns.

mod contexts;
mod copy;
mod diff;
mod edit;
mod export;
mod external;
mod follow;
mod message;
mod side;
mod sizes;
mod transcript;
mod trim;

use crate::store::{Encoding, SessionRecord, StoreEvent};
use crate::tui::effect::Effect;
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{App, EditKind, InputPurpose, Loaded, Viewer, ViewerMode};
use crate::tui::msg::Action;
use crate::tui::ops::{ListOp, UiError, ViewerOp, ViewerReply};
use crate::tui::update::{Go, Step};
use std::path::Path;

/// A viewer of `record`, loading its conversation.
pub fn open(app: &mut App, record: SessionRecord) -> (Viewer, Vec<Effect>) {
    let req = app.request();
    let effect = Effect::store(
        req,
        ViewerOp::LoadConversation {
            record: record.clone(),
            context: None,
        },
    );
    (Viewer::new(record, req), vec![effect])
}

/// What the watcher saw: the open session is read again if it changed.
pub fn on_disk(viewer: &mut Viewer, app: &mut App, event: &StoreEvent) -> Vec<Effect> {
    follow::on_disk(viewer, app, event)
}

/// A reply of the worker or the transcript search for the viewer, to
/// request `req`; then, if the session changed on disk meanwhile and
/// nothing else is awaited, it is read again.
pub fn on_reply(viewer: &mut Viewer, app: &mut App, req: u64, reply: ViewerReply) -> Step {
    let mut step = answer(viewer, app, req, reply);
    if step.go.is_none() {
        step.effects.extend(follow::maybe_follow(viewer, app));
    }
    step
}

fn answer(viewer: &mut Viewer, app: &mut App, req: u64, reply: ViewerReply) -> Step {
    match reply {
        ViewerReply::ConversationLoaded { result } if req == viewer.waiting => {
            Step::effects(on_loaded(viewer, app, req, result))
        }
        ViewerReply::Followed { result } if req == viewer.waiting => {
            Step::effects(follow::on_followed(viewer, app, req, result))
        }
        ViewerReply::Counted {
            encoding,
            start,
            counts,
        } if req == viewer.waiting => {
            Step::effects(on_counted(viewer, app, encoding, start, counts))
        }
        ViewerReply::CountingEnded { result: Err(error) } if req == viewer.waiting => {
            app.complain(error);
            Step::none()
        }
        ViewerReply::EditFactsRead { facts } if req == viewer.pending.facts => {
            if let Some(loaded) = &mut viewer.loaded {
                loaded.facts = Some(facts);
            }
            sizes::refresh(viewer, app);
            Step::effects(replan(viewer, app))
        }
        ViewerReply::ClearedCounted { encoding, result } => {
            Step::effects(edit::on_cleared(viewer, app, req, encoding, result))
        }
        ViewerReply::ReplacedCounted {
            encoding,
            results_over,
            result,
        } => Step::effects(edit::on_replaced(
            viewer,
            app,
            req,
            encoding,
            results_over,
            result,
        )),
        ViewerReply::EditPreviewed { result } if req == viewer.waiting => {
            edit::on_previewed(viewer, app, result);
            Step::none()
        }
        ViewerReply::Edited { result } if req == viewer.waiting => {
            if edit::on_edited(viewer, app, result) {
                // Another agent's fork is a new session beside the one on
                // screen, which is as it was: the list reads the new one,
                // and the status keeps saying where it went.
                if viewer.record.agent.is_external() {
                    viewer.mode = ViewerMode::Browse;
                    let mut step = Step::none();
                    step.go = Some(Go::Rescan);
                    return step;
                }
                return Step::effects(reload(viewer, app));
            }
            Step::none()
        }
        ViewerReply::Diffed { result } => {
            diff::on_diffed(viewer, req, result);
            Step::none()
        }
        ViewerReply::Exported { path, result } => {
            export::on_exported(viewer, app, req, path, result);
            Step::none()
        }
        ViewerReply::Trimmed { result } if req == viewer.waiting => {
            trim::on_trimmed(viewer, app, result)
        }
        ViewerReply::ContextsListed { counted, result } => {
            contexts::on_listed(viewer, app, req, counted, result)
        }
        ViewerReply::DeleteContextChecked { context_id, result } => {
            contexts::on_checked(viewer, app, req, &context_id, result)
        }
        ViewerReply::ContextDeleted { result } => contexts::on_deleted(viewer, app, req, result),
        ViewerReply::TranscriptFound {
            hits,
            complete,
            more,
        } => {
            let Viewer {
                mode,
                loaded,
                selected,
                ..
            } = viewer;
            if let (ViewerMode::Transcript(view), Some(loaded)) = (mode, loaded.as_ref()) {
                let doc = transcript::Doc {
                    context: &loaded.context,
                    selected,
                };
                transcript::on_found(view, doc, req, hits, complete, more);
            }
            Step::none()
        }
        ViewerReply::Switched { result } if req == viewer.waiting => match result {
            Ok(id) => {
                app.say(format!("active context is now {id}"));
                Step::effects(reload(viewer, app))
            }
            Err(e) => {
                app.complain(e);
                Step::none()
            }
        },
        // A reply to an older request than the one the viewer waits for
        // (another conversation loaded since, or a counting that ended).
        ViewerReply::ConversationLoaded { .. }
        | ViewerReply::Followed { .. }
        | ViewerReply::Counted { .. }
        | ViewerReply::CountingEnded { .. }
        | ViewerReply::EditFactsRead { .. }
        | ViewerReply::EditPreviewed { .. }
        | ViewerReply::Edited { .. }
        | ViewerReply::Trimmed { .. }
        | ViewerReply::Switched { .. } => Step::none(),
    }
}

fn on_loaded(
    viewer: &mut Viewer,
    app: &mut App,
    req: u64,
    result: Result<Loaded, UiError>,
) -> Vec<Effect> {
    let encoding = app.settings.encoding;
    viewer.loaded_req = req;
    match result {
        Ok(loaded) => {
            let len = loaded.len();
            viewer.selected = len.saturating_sub(1);
            viewer.detail_scroll = 0;
            viewer.counts.clear();
            viewer.counts.insert(encoding, vec![None; len]);
            viewer.cleared.clear();
            viewer.pending.cleared = None;
            viewer.replaced.clear();
            viewer.pending.replaced = None;
            viewer.breakdown = None;
            viewer.order = None;
            viewer.mode = ViewerMode::Browse;
            viewer.error = None;
            if let Some(first) = loaded.notes.first() {
                let more = loaded.notes.len() - 1;
                let rest = if more > 0 {
                    format!(" (and {more} more: loki-sessions show lists them)")
                } else {
                    String::new()
                };
                app.say(format!("note: {first}{rest}"));
            }
            if let Some((message_id, query)) = viewer.goto.take() {
                match loaded.context.messages().position(|m| m.id() == message_id) {
                    Some(index) => viewer.selected = index,
                    None => {
                        // In a side conversation (a subagent's, an older
                        // fork's): that one is read in the session's place.
                        if let Some(side) =
                            viewer.goto_context.take().filter(|_| viewer.side.is_none())
                        {
                            viewer.goto = Some((message_id, query));
                            return side::open(viewer, app, side);
                        }
                        app.say(format!(
                            "the message is in another context (press {} to see them)",
                            keymap::key_for(Scope::Viewer, Action::Contexts)
                        ));
                    }
                }
                viewer.find = Some(query);
            }
            let context = loaded.context.clone();
            viewer.loaded = Some(loaded);
            // The edit facts are read beside the counting (each on its own thread).
            viewer.pending.facts = req;
            vec![
                Effect::store(
                    req,
                    ViewerOp::CountTokens {
                        record: viewer.record.clone(),
                        context: context.clone(),
                        encoding,
                    },
                ),
                Effect::store(req, ViewerOp::ReadEditFacts { context }),
            ]
        }
        Err(e) => {
            viewer.error = Some(e);
            Vec::new()
        }
    }
}

fn on_counted(
    viewer: &mut Viewer,
    app: &mut App,
    encoding: Encoding,
    start: usize,
    counts: Vec<u64>,
) -> Vec<Effect> {
    let Some(slots) = viewer.counts.get_mut(&encoding) else {
        return Vec::new();
    };
    for (slot, count) in slots.iter_mut().skip(start).zip(counts) {
        *slot = Some(count);
    }
    if encoding != app.settings.encoding {
        return Vec::new();
    }
    let complete = slots.iter().all(Option::is_some);
    if complete {
        sizes::refresh(viewer, app);
    }
    replan(viewer, app)
}

/// Re-plans the trim or the edit on screen (if there is one) from the
/// current counts; a trim's number is remembered for the next trim of
/// this session.
fn replan(viewer: &mut Viewer, app: &mut App) -> Vec<Effect> {
    if viewer.edit().is_some() {
        return edit::replan(viewer, app);
    }
    let counts = viewer.complete_counts(app.settings.encoding);
    let external = viewer.record.agent.is_external();
    let (Some(loaded), ViewerMode::Trim(state)) = (&viewer.loaded, &mut viewer.mode) else {
        return Vec::new();
    };
    app.trims
        .insert((viewer.record.id.to_string(), state.kind), state.value);
    if let Err(e) = trim::replan(state, loaded, counts.as_deref(), external) {
        app.complain(e);
    }
    Vec::new()
}

/// Keys of the viewer (and of its sub-modes).
pub fn on_action(viewer: &mut Viewer, app: &mut App, action: Action) -> Step {
    if matches!(
        action,
        Action::CopyMessage | Action::CopySessionId | Action::CopySessionPath
    ) {
        copy::copy(viewer, app, action);
        return Step::none();
    }
    if viewer.side.is_some() && side::refuses(app, action) {
        return Step::none();
    }
    if matches!(viewer.mode, ViewerMode::Browse | ViewerMode::Transcript(_)) {
        if matches!(action, Action::OpenInPager | Action::OpenInEditor) {
            external::open(viewer, app, action);
            return Step::none();
        }
        if action == Action::Follow {
            follow::toggle(viewer, app);
            return Step::none();
        }
        follow::stop_on_move_up(viewer, app, action);
    }
    match &mut viewer.mode {
        ViewerMode::Transcript(_) if action == Action::ToggleEncoding => {
            return Step::effects(toggle_encoding(viewer, app));
        }
        ViewerMode::Transcript(_) => return transcript_action(viewer, app, action),
        ViewerMode::Trim(_) => return trim::on_viewer_action(viewer, app, action),
        ViewerMode::Edit(_) => return edit::on_action(viewer, app, action),
        ViewerMode::Breakdown => {
            if action == Action::Back {
                viewer.mode = ViewerMode::Browse;
            }
            return Step::none();
        }
        ViewerMode::Contexts(view) if view.diff.is_some() => {
            diff::on_action(view, action, app.page());
            return Step::none();
        }
        ViewerMode::Contexts(_) if action == Action::Diff => return diff::open(viewer, app),
        ViewerMode::Contexts(_) => return contexts::on_action(viewer, app, action),
        ViewerMode::Message(view) => {
            if message::on_action(view, app, action) {
                viewer.mode = ViewerMode::Browse;
                if let Some(mut view) = viewer.behind.take()
                    && let Some(loaded) = &viewer.loaded
                {
                    let doc = transcript::Doc {
                        context: &loaded.context,
                        selected: &mut viewer.selected,
                    };
                    // The terminal may have changed size meanwhile.
                    transcript::fit(&mut view, &doc, app);
                    viewer.mode = ViewerMode::Transcript(view);
                }
            }
            return Step::none();
        }
        ViewerMode::Browse => {}
    }
    if sizes::move_selection(viewer, action, app.page()) {
        return Step::none();
    }
    match action {
        Action::DetailDown => viewer.detail_scroll = viewer.detail_scroll.saturating_add(3),
        Action::DetailUp => viewer.detail_scroll = viewer.detail_scroll.saturating_sub(3),
        Action::Back => return Step::go(Go::List),
        Action::Resume => {
            return Step::effect(Effect::store(
                app.request(),
                ListOp::Resume {
                    record: viewer.record.clone(),
                    check: app.settings.resume_check.clone(),
                },
            ));
        }
        Action::ToggleEncoding => return Step::effects(toggle_encoding(viewer, app)),
        Action::TrimKeepLast | Action::TrimBudget => trim::begin(viewer, app, action),
        Action::Contexts if viewer.loaded.is_some() => return contexts::open(viewer, app),
        Action::ReadMessage => message::open(viewer, app),
        Action::Breakdown if viewer.loaded.is_some() => viewer.mode = ViewerMode::Breakdown,
        Action::SortBySize => sizes::toggle_sort(viewer, app),
        Action::NextBig | Action::PrevBig => sizes::jump(viewer, app, action == Action::NextBig),
        Action::SetBigSize => sizes::ask_size(app),
        Action::Mark => return Step::effects(edit::mark(viewer, app)),
        Action::MarkRange => return Step::effects(edit::mark_range(viewer, app)),
        Action::StartClear => return Step::effects(edit::begin(viewer, app, EditKind::Clear)),
        Action::StartResumable => {
            return Step::effects(edit::begin(viewer, app, EditKind::Resumable));
        }
        Action::Export => export::ask(viewer, app),
        Action::ToggleTranscript => {
            let Viewer {
                loaded, selected, ..
            } = viewer;
            if let Some(loaded) = loaded.as_ref() {
                let doc = transcript::Doc {
                    context: &loaded.context,
                    selected,
                };
                let view = transcript::open(doc, app);
                viewer.mode = ViewerMode::Transcript(Box::new(view));
            }
        }
        _ => {}
    }
    Step::none()
}

/// Keys of the transcript mode.
fn transcript_action(viewer: &mut Viewer, app: &mut App, action: Action) -> Step {
    if action == Action::ReadMessage {
        // The transcript waits behind the message, as it is.
        let mode = std::mem::replace(&mut viewer.mode, ViewerMode::Browse);
        message::open(viewer, app);
        match (mode, &viewer.mode) {
            (ViewerMode::Transcript(view), ViewerMode::Message(_)) => viewer.behind = Some(view),
            (mode, _) => viewer.mode = mode,
        }
        return Step::none();
    }
    let Viewer {
        mode,
        loaded,
        selected,
        ..
    } = viewer;
    let (ViewerMode::Transcript(view), Some(loaded)) = (mode, loaded.as_ref()) else {
        return Step::none();
    };
    let doc = transcript::Doc {
        context: &loaded.context,
        selected,
    };
    let (close, effects) = transcript::on_action(view, doc, app, action);
    if close {
        viewer.mode = ViewerMode::Browse;
        viewer.detail_scroll = 0;
    }
    Step::effects(effects)
}

/// A character typed: digits set the trim's number; in a message or the
/// transcript, the search.
pub fn on_type(viewer: &mut Viewer, app: &mut App, c: char) -> Step {
    if let (ViewerMode::Transcript(view), Some(loaded)) = (&mut viewer.mode, &viewer.loaded) {
        let doc = transcript::Doc {
            context: &loaded.context,
            selected: &mut viewer.selected,
        };
        return Step::effects(transcript::on_type(view, doc, app, c));
    }
    let changed = match &mut viewer.mode {
        ViewerMode::Trim(state) => trim::on_digit(state, c),
        ViewerMode::Edit(_) => return Step::effects(edit::on_digit(viewer, app, c)),
        ViewerMode::Message(view) => {
            message::on_type(view, app, c);
            false
        }
        _ => false,
    };
    if changed {
        return Step::effects(replan(viewer, app));
    }
    Step::none()
}

/// Text pasted: digits set the trim's number, text goes to the search in a
/// message; anything else is ignored.
pub fn on_paste(viewer: &mut Viewer, app: &mut App, text: &str) -> Step {
    if let (ViewerMode::Transcript(view), Some(loaded)) = (&mut viewer.mode, &viewer.loaded) {
        let doc = transcript::Doc {
            context: &loaded.context,
            selected: &mut viewer.selected,
        };
        return Step::effects(transcript::on_paste(view, doc, app, text));
    }
    let changed = match &mut viewer.mode {
        ViewerMode::Trim(state) => trim::on_paste(state, text),
        ViewerMode::Edit(_) => return Step::effects(edit::on_paste(viewer, app, text)),
        ViewerMode::Message(view) => {
            message::on_paste(view, app, text);
            false
        }
        _ => false,
    };
    if changed {
        return Step::effects(replan(viewer, app));
    }
    Step::none()
}

/// The terminal changed size: a message read full screen wraps again.
pub fn on_resize(viewer: &mut Viewer, app: &App) {
    match (&mut viewer.mode, &viewer.loaded) {
        (ViewerMode::Message(view), _) => message::fit(view, app.size),
        (ViewerMode::Transcript(view), Some(loaded)) => {
            let doc = transcript::Doc {
                context: &loaded.context,
                selected: &mut viewer.selected,
            };
            transcript::fit(view, &doc, app);
        }
        _ => {}
    }
}

/// The person said yes to deleting a context.
pub fn on_delete_context_confirmed(viewer: &mut Viewer, app: &mut App, id: &str) -> Step {
    contexts::on_delete_confirmed(viewer, app, id)
}

/// The person said yes to editing a session an agent owns.
pub fn on_edit_confirmed(viewer: &mut Viewer, app: &mut App) -> Step {
    edit::apply(viewer, app)
}

/// The person said yes to replacing a file with an export.
pub fn on_replace_export_confirmed(viewer: &mut Viewer, app: &mut App, path: &Path) -> Step {
    export::on_replace_confirmed(viewer, app, path)
}

/// A line the viewer asked for was typed: the size of the jumps, or where
/// to export.
pub fn on_input_done(
    viewer: &mut Viewer,
    app: &mut App,
    purpose: InputPurpose,
    text: &str,
) -> Step {
    match purpose {
        InputPurpose::BigMessage => {
            sizes::on_size_typed(app, text);
            Step::none()
        }
        InputPurpose::Export => export::on_path_typed(viewer, app, text),
        InputPurpose::NewSession
        | InputPurpose::Rename { .. }
        | InputPurpose::Move { .. }
        | InputPurpose::PullTo { .. } => Step::none(),
    }
}

fn toggle_encoding(viewer: &mut Viewer, app: &mut App) -> Vec<Effect> {
    app.settings.encoding = app.settings.encoding.next();
    let encoding = app.settings.encoding;
    app.say(format!("token counts now in {encoding}"));
    let Some(loaded) = &viewer.loaded else {
        return Vec::new();
    };
    let context = loaded.context.clone();
    let len = loaded.len();
    let mut effects = Vec::new();
    // Counts of the other encoding stay cached: toggling back is instant.
    if let std::collections::hash_map::Entry::Vacant(slot) = viewer.counts.entry(encoding) {
        slot.insert(vec![None; len]);
        effects.push(Effect::store(
            viewer.waiting,
            ViewerOp::CountTokens {
                record: viewer.record.clone(),
                context,
                encoding,
            },
        ));
    }
    sizes::refresh(viewer, app);
    effects.extend(replan(viewer, app));
    effects
}

/// The person said yes to trimming a session an agent owns.
pub fn on_trim_confirmed(viewer: &mut Viewer, app: &mut App) -> Step {
    trim::apply(viewer, app)
}

/// Loads the open session's conversation again.
fn reload(viewer: &mut Viewer, app: &mut App) -> Vec<Effect> {
    viewer.mode = ViewerMode::Browse;
    // What changed on disk meanwhile is in what this reads.
    viewer.dirty = false;
    viewer.waiting = app.request();
    vec![Effect::store(
        viewer.waiting,
        ViewerOp::LoadConversation {
            record: viewer.record.clone(),
            context: viewer.side.clone(),
        },
    )]
}
