//! The pure state machine: `update(&mut Model, Msg) -> Vec<Effect>`. No I/O
//! here; everything slow is an `Effect`, and its answer comes back as a `Msg`
//! tagged with the request it answers (stale answers are dropped).
//!
//! This file is the router: it hands each message to the screen that owns
//! it, and it alone moves between screens ([`Go`]). A screen's module
//! changes only that screen's state (and the shared chrome, [`App`]); no
//! module under `update/` uses another.

mod dashboard;
mod dialogs;
mod hosts;
mod list;
mod purge;
mod trash;
mod viewer;

use crate::humanize;
use crate::store::{Agent, PurgeReport, SessionRecord};
use crate::tui::effect::Effect;
use crate::tui::keymap;
use crate::tui::model::{
    ConfirmAction, Exit, IndexState, InputPurpose, Model, Overlay, Screen, TrashFrom,
};
use crate::tui::msg::{Action, Msg};
use crate::tui::ops::{ListOp, Reply};

/// What a screen asks for after handling a message: work to start, and
/// somewhere else to go.
#[derive(Debug, Default)]
#[must_use]
pub struct Step {
    /// Work for the worker.
    pub effects: Vec<Effect>,
    /// A move between screens (or out of the UI).
    pub go: Option<Go>,
}

/// A move only the router makes.
#[derive(Clone, Debug, PartialEq)]
pub enum Go {
    /// Back to the list.
    List,
    /// Open the viewer on this session.
    Viewer(SessionRecord),
    /// Open the viewer on this session at a message, its matches marked.
    ViewerAt {
        record: SessionRecord,
        message_id: String,
        query: String,
        /// The context the message is in.
        context_id: String,
    },
    /// Open the purge preview (on the agent the list shows alone, if any).
    Purge,
    /// Open the purge preview of this agent's sessions (None: the Loki
    /// tree's or the peteos folder's), as the trash goes back to it.
    PurgeOf(Option<Agent>),
    /// Open the trash (Esc goes back where it says).
    Trash(TrashFrom),
    /// Open the usage dashboard.
    Dashboard,
    /// Open the other machines' pane (asking the config's hosts the first
    /// time).
    Hosts,
    /// The store changed: the list reads it again (the screen stays).
    Rescan,
    /// End the UI.
    Exit(Exit),
}

impl Step {
    /// Nothing to do.
    pub fn none() -> Self {
        Step::default()
    }

    /// Start these effects.
    pub fn effects(effects: Vec<Effect>) -> Self {
        Step { effects, go: None }
    }

    /// Start one effect.
    pub fn effect(effect: Effect) -> Self {
        Step::effects(vec![effect])
    }

    /// Go somewhere.
    pub fn go(go: Go) -> Self {
        Step {
            effects: Vec::new(),
            go: Some(go),
        }
    }
}

/// The effects to run when the UI starts: read the store, show the stats
/// the search index has, and bring the index up to date in the background.
pub fn init(model: &mut Model) -> Vec<Effect> {
    let mut effects = list::rescan(&mut model.list, &mut model.app);
    let app = &mut model.app;
    effects.extend([
        Effect::store(app.request(), ListOp::LoadIndexStats),
        Effect::store(app.request(), ListOp::UpdateIndex),
    ]);
    model.list.index = IndexState::Updating { done: 0, total: 0 };
    if let Some(options) = &model.app.settings.watch {
        effects.push(Effect::Watch(options.clone()));
    }
    // `--host` named other machines: their pane first, the list behind it.
    let open_hosts = model.app.settings.open_hosts.clone();
    if !open_hosts.is_empty() {
        effects.extend(hosts::ask(&mut model.hosts, &mut model.app, &open_hosts));
        model.screen = Screen::Hosts;
    }
    effects
}

/// Applies `msg` to `model` and returns the work it calls for.
pub fn update(model: &mut Model, msg: Msg) -> Vec<Effect> {
    let step = route(model, msg);
    let mut effects = step.effects;
    if let Some(go) = step.go {
        effects.extend(go_to(model, go));
    }
    effects
}

fn route(model: &mut Model, msg: Msg) -> Step {
    let (list, app) = (&mut model.list, &mut model.app);
    match msg {
        Msg::Action(Action::Quit) => Step::go(Go::Exit(Exit::Cancel)),
        Msg::Action(Action::Suspend) => {
            app.suspend += 1;
            Step::none()
        }
        Msg::Signal(signal) => Step::go(Go::Exit(Exit::Signal(signal))),
        Msg::Ran(said) => {
            match said {
                Ok(text) => app.say(text),
                Err(text) => app.complain(text),
            }
            Step::none()
        }
        Msg::Tick(now) => {
            app.now = now;
            Step::none()
        }
        Msg::Resize(width, height) => {
            app.size = (width, height);
            if let Screen::Viewer(viewer) = &mut model.screen {
                viewer::on_resize(viewer, app);
            }
            Step::none()
        }
        // While the screen cannot be drawn, what arrives from the person
        // (a paste, a wheel, a key the keymap let through) does nothing.
        Msg::Action(action) if app.cannot_draw() && action != Action::Quit => Step::none(),
        Msg::Type(_) | Msg::Paste(_) | Msg::Scroll(_) if app.cannot_draw() => Step::none(),
        Msg::Action(action) => on_action(model, action),
        Msg::Type(c) => on_type(model, c),
        Msg::Paste(text) => on_paste(model, &text),
        Msg::Scroll(lines) => {
            let action = if lines > 0 { Action::Down } else { Action::Up };
            let mut step = Step::none();
            for _ in 0..lines.unsigned_abs().min(50) {
                let next = on_action(model, action);
                step.effects.extend(next.effects);
                step.go = step.go.or(next.go);
            }
            step
        }
        Msg::FillIndexed { generation } => {
            let mut step = list::on_fill(list, app, generation);
            // The rows gained what the index knows: their usage among it.
            if let Screen::Dashboard(dashboard) = &mut model.screen {
                step.effects.extend(dashboard::ask(dashboard, list, app));
            }
            step
        }
        Msg::Disk { event, at } => {
            let mut step = list::on_disk(list, app, &event, at);
            match &mut model.screen {
                Screen::Viewer(viewer) => step.effects.extend(viewer::on_disk(viewer, app, &event)),
                // The list's rows are read again first; the figures follow.
                Screen::Dashboard(dashboard) => {
                    step.effects.extend(dashboard::ask(dashboard, list, app));
                }
                _ => {}
            }
            step
        }
        Msg::Reply { req, reply } => match reply {
            Reply::List(reply) => {
                let indexed = matches!(reply, crate::tui::ops::ListReply::IndexStats { .. });
                let mut step = list::on_reply(list, app, req, reply);
                // The rows gained the index's usage: the figures follow.
                if let (true, Screen::Dashboard(dashboard)) = (indexed, &mut model.screen) {
                    step.effects.extend(dashboard::ask(dashboard, list, app));
                }
                step
            }
            Reply::Viewer(reply) => match &mut model.screen {
                Screen::Viewer(viewer) => viewer::on_reply(viewer, app, req, reply),
                _ => Step::none(), // the viewer was closed: a late reply
            },
            Reply::Purge(reply) => match &mut model.screen {
                Screen::Purge(purge) => purge::on_reply(purge, app, req, reply),
                _ => Step::none(),
            },
            Reply::Trash(reply) => match &mut model.screen {
                Screen::Trash(trash) => trash::on_reply(trash, app, req, reply),
                _ => Step::none(),
            },
            Reply::Dashboard(reply) => match &mut model.screen {
                Screen::Dashboard(dashboard) => dashboard::on_reply(dashboard, req, reply),
                _ => Step::none(),
            },
            Reply::Hosts(reply) => hosts::on_reply(&mut model.hosts, app, req, reply),
        },
    }
}

fn on_action(model: &mut Model, action: Action) -> Step {
    let app = &mut model.app;
    match &app.overlay {
        Some(Overlay::Help(scroll)) => {
            let mut scroll = *scroll;
            let len = keymap::help_len(&model.screen);
            move_cursor(&mut scroll, len, action, app.page());
            app.overlay = (action != Action::Back).then_some(Overlay::Help(scroll));
            return Step::none();
        }
        Some(Overlay::Confirm(_)) => {
            return match dialogs::on_confirm_action(app, action) {
                Some(confirmed) => on_confirmed(model, confirmed),
                None => Step::none(),
            };
        }
        Some(Overlay::Input(_)) => {
            return match (dialogs::on_input_action(app, action), &mut model.screen) {
                (Some((purpose, text)), Screen::Viewer(viewer)) if purpose.belongs_to_viewer() => {
                    viewer::on_input_done(viewer, app, purpose, &text)
                }
                (Some((purpose, _)), _) if purpose.belongs_to_viewer() => Step::none(),
                (Some((InputPurpose::PullTo { host, id }, text)), _) => {
                    hosts::on_folder_typed(&mut model.hosts, app, &host, &id, &text)
                }
                (Some((purpose, text)), _) => {
                    list::on_input_done(&mut model.list, app, purpose, text)
                }
                (None, _) => Step::none(),
            };
        }
        None => {}
    }
    match action {
        Action::Help => {
            app.overlay = Some(Overlay::Help(0));
            return Step::none();
        }
        Action::ToggleMouse => {
            toggle_mouse(model);
            return Step::none();
        }
        _ => {}
    }
    match &mut model.screen {
        Screen::List => list::on_action(&mut model.list, app, action),
        Screen::Viewer(viewer) => viewer::on_action(viewer, app, action),
        Screen::Purge(purge) => purge::on_action(purge, app, action),
        Screen::Trash(trash) => trash::on_action(trash, app, action),
        Screen::Dashboard(dashboard) => dashboard::on_action(dashboard, &model.list, app, action),
        Screen::Hosts => hosts::on_action(&mut model.hosts, app, action),
    }
}

/// A question was answered yes: the screen that asked carries it out.
fn on_confirmed(model: &mut Model, action: ConfirmAction) -> Step {
    match (action, &mut model.screen) {
        (ConfirmAction::Delete { id, damaged }, _) => {
            list::on_delete_confirmed(&mut model.list, &mut model.app, &id, damaged)
        }
        (ConfirmAction::Move { id, to }, _) => {
            list::on_move_confirmed(&mut model.list, &mut model.app, &id, to)
        }
        (ConfirmAction::RestoreArchived { id }, _) => {
            list::on_restore_confirmed(&mut model.list, &mut model.app, &id)
        }
        (ConfirmAction::Purge, Screen::Purge(purge)) => purge::on_confirmed(purge, &mut model.app),
        (ConfirmAction::TrimAgentOwned, Screen::Viewer(viewer)) => {
            viewer::on_trim_confirmed(viewer, &mut model.app)
        }
        (ConfirmAction::DeleteContext { id }, Screen::Viewer(viewer)) => {
            viewer::on_delete_context_confirmed(viewer, &mut model.app, &id)
        }
        (ConfirmAction::EditAgentOwned | ConfirmAction::Resumable, Screen::Viewer(viewer)) => {
            viewer::on_edit_confirmed(viewer, &mut model.app)
        }
        (ConfirmAction::ReplaceExport { path }, Screen::Viewer(viewer)) => {
            viewer::on_replace_export_confirmed(viewer, &mut model.app, &path)
        }
        (ConfirmAction::EmptyTrash { entries }, Screen::Trash(trash)) => {
            trash::on_empty_confirmed(trash, &mut model.app, entries)
        }
        (ConfirmAction::Pull { host, id, to }, Screen::Hosts) => {
            hosts::on_pull_confirmed(&mut model.hosts, &mut model.app, &host, &id, to)
        }
        (
            ConfirmAction::Purge
            | ConfirmAction::TrimAgentOwned
            | ConfirmAction::DeleteContext { .. }
            | ConfirmAction::EditAgentOwned
            | ConfirmAction::Resumable
            | ConfirmAction::ReplaceExport { .. }
            | ConfirmAction::EmptyTrash { .. }
            | ConfirmAction::Pull { .. },
            _,
        ) => Step::none(),
    }
}

fn on_type(model: &mut Model, c: char) -> Step {
    let app = &mut model.app;
    match &app.overlay {
        Some(Overlay::Input(_)) => {
            dialogs::on_input_type(app, c);
            return Step::none();
        }
        Some(_) => return Step::none(),
        None => {}
    }
    match &mut model.screen {
        Screen::List => list::on_type(&mut model.list, app, c),
        Screen::Hosts => hosts::on_type(&mut model.hosts, app, c),
        Screen::Viewer(viewer) => viewer::on_type(viewer, app, c),
        Screen::Purge(_) | Screen::Trash(_) | Screen::Dashboard(_) => Step::none(),
    }
}

/// Pasted text goes, as text, to whatever takes text: the open text field,
/// the search, or the number of a trim or a clear. Nowhere else does it do
/// anything.
fn on_paste(model: &mut Model, text: &str) -> Step {
    let app = &mut model.app;
    match &app.overlay {
        Some(Overlay::Input(_)) => {
            dialogs::on_input_paste(app, text);
            return Step::none();
        }
        Some(_) => return Step::none(),
        None => {}
    }
    match &mut model.screen {
        Screen::List => list::on_paste(&mut model.list, app, text),
        Screen::Hosts => hosts::on_paste(&mut model.hosts, app, text),
        Screen::Viewer(viewer) => viewer::on_paste(viewer, app, text),
        Screen::Purge(_) | Screen::Trash(_) | Screen::Dashboard(_) => Step::none(),
    }
}

/// The mouse goes to the terminal (to select and copy text) or comes back
/// (wheel scrolling); the runtime applies it after this update.
fn toggle_mouse(model: &mut Model) {
    let key = keymap::key_for(keymap::scope(model), Action::ToggleMouse);
    let app = &mut model.app;
    app.mouse_capture = !app.mouse_capture;
    if app.mouse_capture {
        app.say(format!(
            "mouse on: the wheel scrolls; {key} lets the terminal select text to copy"
        ));
    } else {
        app.say(format!(
            "mouse off: select text with the mouse to copy it; {key} turns the mouse back on"
        ));
    }
}

/// Moves between screens: the one place a screen is opened or closed. What
/// the status line said was about the screen left, so it is cleared.
fn go_to(model: &mut Model, go: Go) -> Vec<Effect> {
    let (list, app) = (&mut model.list, &mut model.app);
    if matches!(
        go,
        Go::List
            | Go::Viewer(_)
            | Go::Purge
            | Go::PurgeOf(_)
            | Go::Trash(_)
            | Go::Dashboard
            | Go::Hosts
    ) {
        app.status = None;
    }
    match go {
        Go::List => {
            model.screen = Screen::List;
            list::after_move(list, app)
        }
        Go::Viewer(record) => {
            let (viewer, effects) = viewer::open(app, record);
            model.screen = Screen::Viewer(Box::new(viewer));
            effects
        }
        Go::ViewerAt {
            record,
            message_id,
            query,
            context_id,
        } => {
            let (mut viewer, effects) = viewer::open(app, record);
            viewer.goto = Some((message_id, query));
            viewer.goto_context = Some(context_id);
            model.screen = Screen::Viewer(Box::new(viewer));
            effects
        }
        purge_go @ (Go::Purge | Go::PurgeOf(_)) => {
            // The Loki tree's (or peteos folder's) purge, and each other
            // agent listed; the one asked for, else the one the list shows
            // alone, comes first.
            let offered: Vec<Option<Agent>> = std::iter::once(None)
                .chain(
                    // Only the agents whose sessions a purge can move.
                    list.listed_agents()
                        .into_iter()
                        .filter(|a| a.is_external() && a.moves_to_trash())
                        .map(Some),
                )
                .collect();
            let start = match purge_go {
                Go::PurgeOf(agent) => agent,
                _ => list
                    .agent_filter()
                    .filter(|a| a.is_external() && a.moves_to_trash()),
            };
            let (purge, effects) = purge::open(app, offered, start);
            model.screen = Screen::Purge(Box::new(purge));
            effects
        }
        Go::Trash(from) => {
            let (trash, effects) = trash::open(app, from);
            model.screen = Screen::Trash(Box::new(trash));
            effects
        }
        Go::Dashboard => {
            let (dashboard, effects) = dashboard::open(list, app);
            model.screen = Screen::Dashboard(Box::new(dashboard));
            effects
        }
        Go::Hosts => {
            if model.hosts.hosts.is_empty() {
                let configured = app.settings.hosts.clone();
                if configured.is_empty() {
                    app.complain(
                        "no other machines: add `dev = \"user@machine\"` under [hosts] in the config",
                    );
                    return Vec::new();
                }
                model.screen = Screen::Hosts;
                return hosts::ask(&mut model.hosts, app, &configured);
            }
            model.screen = Screen::Hosts;
            Vec::new()
        }
        Go::Rescan => list::rescan(list, app),
        Go::Exit(exit) => {
            model.exit = Some(exit);
            Vec::new()
        }
    }
}

/// Moves a cursor within `0..len` by an action; returns true if it was a move.
pub(crate) fn move_cursor(cursor: &mut usize, len: usize, action: Action, page: usize) -> bool {
    let last = len.saturating_sub(1);
    let next = match action {
        Action::Up => cursor.saturating_sub(1),
        Action::Down => (*cursor + 1).min(last),
        Action::PageUp => cursor.saturating_sub(page),
        Action::PageDown => (*cursor + page).min(last),
        Action::Home => 0,
        Action::End => last,
        _ => return false,
    };
    *cursor = next;
    true
}

/// The status line after a purge or a deletion, and whether it reports a
/// failure (shown as an error).
pub(crate) fn report_text(report: &PurgeReport) -> (String, bool) {
    let mut text = format!(
        "removed {}, freed {}",
        humanize::plural(report.removed.len() as u64, "session"),
        humanize::bytes(report.bytes_freed)
    );
    let failed = tell_left_and_failed(&mut text, report, " that changed");
    (text, failed)
}

/// Adds to a purge's status what it left (`; spared 2 sessions{why} (ID:
/// …)`) and what failed; true when some failed (the status is an error).
pub(crate) fn tell_left_and_failed(
    text: &mut String,
    report: &PurgeReport,
    why_left: &str,
) -> bool {
    if let Some((id, why)) = report.skipped.first() {
        text.push_str(&format!(
            "; spared {}{why_left} ({id}: {why})",
            humanize::plural(report.skipped.len() as u64, "session")
        ));
    }
    if let Some((id, why)) = report.failed.first() {
        text.push_str(&format!(
            "; {} failed ({id}: {why})",
            humanize::plural(report.failed.len() as u64, "session")
        ));
        return true;
    }
    false
}

#[cfg(test)]
mod tests;
