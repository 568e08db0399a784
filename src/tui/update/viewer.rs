//! The context viewer: messages with live token counts, encodings, forks,
//! and its sub-modes (adjusting a trim, managing the contexts, reading one
//! message full screen), which it owns.

mod contexts;
mod message;
mod transcript;
mod trim;

use crate::humanize;
use crate::store::{Encoding, Expected, SessionRecord};
use crate::tui::effect::Effect;
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{App, Confirm, ConfirmAction, Loaded, Overlay, Viewer, ViewerMode};
use crate::tui::msg::{Action, Msg};
use crate::tui::update::{Go, Step, move_cursor};
use trim::TrimStep;

/// A viewer of `record`, loading its conversation.
pub fn open(app: &mut App, record: SessionRecord) -> (Viewer, Vec<Effect>) {
    let req = app.request();
    let effect = Effect::LoadConversation {
        req,
        record: record.clone(),
    };
    (Viewer::new(record, req), vec![effect])
}

/// A reply of the worker for the viewer.
pub fn on_reply(viewer: &mut Viewer, app: &mut App, msg: Msg) -> Step {
    match msg {
        Msg::ConversationLoaded { req, result } if req == viewer.waiting => {
            Step::effects(on_loaded(viewer, app, req, result))
        }
        Msg::Counted {
            req,
            encoding,
            start,
            counts,
        } if req == viewer.waiting => {
            on_counted(viewer, app, encoding, start, counts);
            Step::none()
        }
        Msg::CountFailed { req, error } if req == viewer.waiting => {
            app.complain(error);
            Step::none()
        }
        Msg::Trimmed { req, result } if req == viewer.waiting => on_trimmed(viewer, app, result),
        Msg::ContextsListed {
            req,
            counted,
            result,
        } => contexts::on_listed(viewer, app, req, counted, result),
        Msg::DeleteContextChecked {
            req,
            context_id,
            result,
        } => contexts::on_checked(viewer, app, req, &context_id, result),
        Msg::ContextDeleted { req, result } => contexts::on_deleted(viewer, app, req, result),
        Msg::TranscriptFound {
            req,
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
        Msg::Switched { req, result } if req == viewer.waiting => match result {
            Ok(id) => {
                app.say(format!("active context is now {id}"));
                Step::effects(reload(viewer, app))
            }
            Err(e) => {
                app.complain(e);
                Step::none()
            }
        },
        _ => Step::none(),
    }
}

fn on_loaded(
    viewer: &mut Viewer,
    app: &mut App,
    req: u64,
    result: Result<Loaded, String>,
) -> Vec<Effect> {
    let encoding = app.settings.encoding;
    match result {
        Ok(loaded) => {
            let len = loaded.len();
            viewer.selected = len.saturating_sub(1);
            viewer.detail_scroll = 0;
            viewer.counts.clear();
            viewer.counts.insert(encoding, vec![None; len]);
            viewer.mode = ViewerMode::Browse;
            viewer.error = None;
            if let Some((message_id, query)) = viewer.goto.take() {
                match loaded.context.messages().position(|m| m.id() == message_id) {
                    Some(index) => viewer.selected = index,
                    None => app.say(format!(
                        "the message is in another context (press {} to see them)",
                        keymap::key_for(Scope::Viewer, Action::Contexts)
                    )),
                }
                viewer.find = Some(query);
            }
            let context = loaded.context.clone();
            viewer.loaded = Some(loaded);
            vec![Effect::CountTokens {
                req,
                context,
                encoding,
            }]
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
) {
    let Some(slots) = viewer.counts.get_mut(&encoding) else {
        return;
    };
    for (slot, count) in slots.iter_mut().skip(start).zip(counts) {
        *slot = Some(count);
    }
    if encoding == app.settings.encoding {
        replan(viewer, app);
    }
}

/// Re-plans the trim on screen (if there is one) from the current counts,
/// and remembers its number for the next trim of this session.
fn replan(viewer: &mut Viewer, app: &mut App) {
    let counts = viewer.complete_counts(app.settings.encoding);
    let (Some(loaded), ViewerMode::Trim(state)) = (&viewer.loaded, &mut viewer.mode) else {
        return;
    };
    app.trims
        .insert((viewer.record.id.clone(), state.kind), state.value);
    if let Err(e) = trim::replan(state, loaded, counts.as_deref()) {
        app.complain(e);
    }
}

/// The most bytes put on the clipboard at once: terminals refuse (or
/// hang on) much longer OSC 52 sequences.
const CLIPBOARD_LIMIT: usize = 1_000_000;

/// Keys of the viewer (and of its sub-modes).
pub fn on_action(viewer: &mut Viewer, app: &mut App, action: Action) -> Step {
    if matches!(
        action,
        Action::CopyMessage | Action::CopySessionId | Action::CopySessionPath
    ) {
        copy(viewer, app, action);
        return Step::none();
    }
    match &mut viewer.mode {
        ViewerMode::Transcript(_) if action == Action::ToggleEncoding => {
            return Step::effects(toggle_encoding(viewer, app));
        }
        ViewerMode::Transcript(_) => return transcript_action(viewer, app, action),
        ViewerMode::Trim(_) => return on_trim_action(viewer, app, action),
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
    let len = viewer.loaded.as_ref().map_or(0, |l| l.len());
    if move_cursor(&mut viewer.selected, len, action, app.page()) {
        viewer.detail_scroll = 0;
        return Step::none();
    }
    match action {
        Action::DetailDown => viewer.detail_scroll = viewer.detail_scroll.saturating_add(3),
        Action::DetailUp => viewer.detail_scroll = viewer.detail_scroll.saturating_sub(3),
        Action::Back => return Step::go(Go::List),
        Action::Resume => {
            return Step::effect(Effect::Resume {
                record: viewer.record.clone(),
            });
        }
        Action::ToggleEncoding => return Step::effects(toggle_encoding(viewer, app)),
        Action::TrimKeepLast | Action::TrimBudget => start_trim(viewer, app, action),
        Action::Contexts if viewer.loaded.is_some() => return contexts::open(viewer, app),
        Action::ReadMessage => message::open(viewer, app),
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

/// Puts the selected message's text, the session's id or its path on the
/// clipboard (the runtime writes it to the terminal), saying what it was.
fn copy(viewer: &Viewer, app: &mut App, action: Action) {
    let (text, what) = match action {
        Action::CopyMessage => {
            let Some(message) = viewer
                .loaded
                .as_ref()
                .and_then(|l| l.context.message(viewer.selected))
            else {
                return;
            };
            let text = message.readable();
            let what = format!(
                "message #{} ({})",
                viewer.selected,
                humanize::bytes(text.len() as u64)
            );
            (text, what)
        }
        Action::CopySessionId => (
            viewer.record.id.clone(),
            format!("the session id {}", viewer.record.id),
        ),
        _ => {
            let path = viewer.record.path.display().to_string();
            let what = format!("the session path {path}");
            (path, what)
        }
    };
    if text.len() > CLIPBOARD_LIMIT {
        app.complain(format!(
            "not copied: {what} is more than a terminal's clipboard takes ({})",
            humanize::bytes(CLIPBOARD_LIMIT as u64)
        ));
        return;
    }
    app.copy(text);
    app.say(format!("copied {what} to the clipboard"));
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
        ViewerMode::Message(view) => {
            message::on_type(view, app, c);
            false
        }
        _ => false,
    };
    if changed {
        replan(viewer, app);
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
        ViewerMode::Message(view) => {
            message::on_paste(view, app, text);
            false
        }
        _ => false,
    };
    if changed {
        replan(viewer, app);
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
        effects.push(Effect::CountTokens {
            req: viewer.waiting,
            context,
            encoding,
        });
    }
    replan(viewer, app);
    effects
}

fn start_trim(viewer: &mut Viewer, app: &mut App, action: Action) {
    let Some(loaded) = &viewer.loaded else {
        return;
    };
    if let Err(e) = viewer.record.writable() {
        app.complain(e.to_string());
        return;
    }
    let total = viewer
        .complete_counts(app.settings.encoding)
        .map(|c| c.iter().sum());
    let mut state = trim::start(action, loaded, total, app.settings.window_tokens);
    if let Some(value) = app.trims.get(&(viewer.record.id.clone(), state.kind)) {
        state.value = *value;
    }
    viewer.mode = ViewerMode::Trim(state);
    replan(viewer, app);
}

fn on_trim_action(viewer: &mut Viewer, app: &mut App, action: Action) -> Step {
    let len = viewer.loaded.as_ref().map_or(0, |l| l.len());
    // The view moves while the trim stays as it is.
    if matches!(
        action,
        Action::PageUp | Action::PageDown | Action::Home | Action::End
    ) {
        move_cursor(&mut viewer.selected, len, action, app.page());
        return Step::none();
    }
    let ViewerMode::Trim(state) = &mut viewer.mode else {
        return Step::none();
    };
    match trim::on_action(state, action) {
        TrimStep::Nothing => Step::none(),
        TrimStep::Changed => {
            replan(viewer, app);
            Step::none()
        }
        TrimStep::Restart(action) => {
            start_trim(viewer, app, action);
            Step::none()
        }
        TrimStep::Cancel => {
            viewer.mode = ViewerMode::Browse;
            Step::none()
        }
        TrimStep::Apply => ask_or_apply_trim(viewer, app),
    }
}

/// Applies the trim, asking first when an agent owns the session: it may be
/// appending right now, and the fork would miss what it writes next.
fn ask_or_apply_trim(viewer: &mut Viewer, app: &mut App) -> Step {
    let agent_owned = viewer.loaded.as_ref().is_some_and(|l| l.agent_owned);
    let ready =
        matches!(&viewer.mode, ViewerMode::Trim(state) if trim::ready_request(state).is_some());
    if agent_owned && ready {
        app.overlay = Some(Overlay::Confirm(Confirm {
            title: "An agent owns this session".into(),
            lines: vec![
                "session.json says a running agent has it open (is_active).".into(),
                "The trim takes the session's lock, but the agent may keep writing to the context it has loaded, and what it writes next would not be in the fork.".into(),
                "Trim it anyway?".into(),
            ],
            action: ConfirmAction::TrimAgentOwned,
        }));
        return Step::none();
    }
    apply_trim(viewer, app)
}

/// The person said yes to trimming a session an agent owns.
pub fn on_trim_confirmed(viewer: &mut Viewer, app: &mut App) -> Step {
    apply_trim(viewer, app)
}

fn apply_trim(viewer: &mut Viewer, app: &mut App) -> Step {
    let (Some(loaded), ViewerMode::Trim(state)) = (&viewer.loaded, &mut viewer.mode) else {
        return Step::none();
    };
    let Some(request) = trim::ready_request(state) else {
        match state.plan.as_ref().map(|p| p.changed) {
            Some(false) => app.say("nothing to trim: the context already fits"),
            _ => app.say("still counting tokens; try again in a moment"),
        }
        return Step::none();
    };
    state.applying = true;
    let expected = Expected {
        context_id: loaded.context.id().to_string(),
        mutation_counter: loaded.context.mutation_counter(),
    };
    viewer.waiting = app.request();
    Step::effect(Effect::ApplyTrim {
        req: viewer.waiting,
        record: viewer.record.clone(),
        request,
        encoding: app.settings.encoding,
        expected,
    })
}

fn on_trimmed(viewer: &mut Viewer, app: &mut App, result: Result<Option<String>, String>) -> Step {
    match result {
        Ok(Some(id)) => {
            // The date and the first part of the id name it on screen, and
            // leave room at 80 columns for the key that undoes the trim.
            let short = id.get(..17).unwrap_or(&id);
            app.say(format!(
                "trimmed: new active context {short}…; press {} to switch back",
                keymap::key_for(Scope::Viewer, Action::Contexts)
            ));
            Step::effects(reload(viewer, app))
        }
        Ok(None) => {
            app.say("nothing to trim: the context already fits");
            Step::effects(reload(viewer, app))
        }
        Err(e) => {
            if let ViewerMode::Trim(state) = &mut viewer.mode {
                state.applying = false;
            }
            app.complain(e);
            Step::none()
        }
    }
}

/// Loads the open session's conversation again.
fn reload(viewer: &mut Viewer, app: &mut App) -> Vec<Effect> {
    viewer.mode = ViewerMode::Browse;
    viewer.waiting = app.request();
    vec![Effect::LoadConversation {
        req: viewer.waiting,
        record: viewer.record.clone(),
    }]
}
