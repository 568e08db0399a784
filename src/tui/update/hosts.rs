//! The other machines' pane: each host of the config asked for its
//! sessions over ssh at once, each on a thread of its own; the rows fill in
//! as each answers, a slow or unreachable host said and left out. Typing
//! narrows the rows; Enter ends the UI to resume the session on its host
//! (`Exit::ResumeRemote`: the same `resume --host` the CLI runs). A key
//! pulls the selected session here: the folder asked, what it writes
//! shown, then written on yes (`pull --host`'s fetch and store call).

use crate::hosts::Host;
use crate::humanize;
use crate::store::safe_text::safe_line;
use crate::store::{Pack, PullPlan};
use crate::tui::effect::Effect;
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{
    App, Confirm, ConfirmAction, Exit, HostState, HostsView, Input, InputPurpose, Overlay,
    typed_folder,
};
use crate::tui::msg::Action;
use crate::tui::ops::{HostsReply, PullJob};
use crate::tui::update::{Go, Step, move_cursor};
use std::path::PathBuf;
use std::sync::Arc;
use tui_input::InputRequest;

/// Asks each of `hosts` for its sessions, the rows each listed before kept
/// until it answers again.
pub fn ask(view: &mut HostsView, app: &mut App, hosts: &[Host]) -> Vec<Effect> {
    view.hosts = hosts
        .iter()
        .map(|host| {
            let req = app.request();
            (host.clone(), HostState::Asking { req })
        })
        .collect();
    view.hosts
        .iter()
        .filter_map(|(host, state)| match state {
            HostState::Asking { req } => Some(Effect::AskHost {
                req: *req,
                host: host.clone(),
                deadline: app.settings.host_timeout,
            }),
            _ => None,
        })
        .collect()
}

/// Keys of the pane.
pub fn on_action(view: &mut HostsView, app: &mut App, action: Action) -> Step {
    if move_cursor(&mut view.selected, view.visible.len(), action, app.page()) {
        return Step::none();
    }
    match action {
        Action::Resume => resume(view, app),
        Action::Pull => {
            ask_folder(view, app);
            Step::none()
        }
        Action::Refresh => {
            let hosts: Vec<Host> = view.hosts.iter().map(|(h, _)| h.clone()).collect();
            Step::effects(ask(view, app, &hosts))
        }
        Action::ClearOrQuit if view.filter.is_empty() => Step::go(Go::List),
        Action::ClearOrQuit => {
            view.filter.clear();
            view.refilter();
            Step::none()
        }
        Action::Edit(request) => {
            edit(view, app, request);
            Step::none()
        }
        _ => Step::none(),
    }
}

/// A character typed into the filter.
pub fn on_type(view: &mut HostsView, app: &mut App, c: char) -> Step {
    edit(view, app, InputRequest::InsertChar(c));
    Step::none()
}

/// Text pasted into the filter, as text.
pub fn on_paste(view: &mut HostsView, app: &mut App, text: &str) -> Step {
    let pasted = view.filter.paste(text);
    if pasted.cut {
        app.complain(limit_note(view));
    }
    if pasted.inserted > 0 {
        view.refilter();
    }
    Step::none()
}

fn edit(view: &mut HostsView, app: &mut App, request: InputRequest) {
    let full = view.filter.value().chars().count() >= view.filter.limit();
    if view.filter.edit(request) {
        view.refilter();
    } else if full && matches!(request, InputRequest::InsertChar(_)) {
        app.complain(limit_note(view));
    }
}

fn limit_note(view: &HostsView) -> String {
    format!(
        "the filter holds at most {} characters; the rest was left out",
        view.filter.limit()
    )
}

/// Enter: the UI ends and the session resumes on its host; one its agent
/// deleted there is said to be restored there first.
fn resume(view: &HostsView, app: &mut App) -> Step {
    let Some(session) = view.selected_session() else {
        app.say(if view.asking() {
            "no session yet: the hosts are being asked"
        } else {
            "no session to resume"
        });
        return Step::none();
    };
    if session.archived {
        app.complain(format!(
            "its agent deleted it on {}; it is kept in the archive there: restore it there first (loki-sessions restore --from-archive {})",
            session.host, session.id
        ));
        return Step::none();
    }
    let Some((host, _)) = view.hosts.iter().find(|(h, _)| h.name == session.host) else {
        return Step::none();
    };
    Step::go(Go::Exit(Exit::ResumeRemote {
        host: host.clone(),
        id: session.id.clone(),
    }))
}

/// A host's answer to request `req`; one asked again since is dropped.
pub fn on_reply(view: &mut HostsView, app: &mut App, req: u64, reply: HostsReply) -> Step {
    let (host, result) = match reply {
        HostsReply::Listed { host, result } => (host, result),
        HostsReply::Pulled { write, result } => return on_pulled(view, app, req, write, result),
    };
    let Some((_, state)) = view
        .hosts
        .iter_mut()
        .find(|(h, s)| h.name == host && *s == HostState::Asking { req })
    else {
        return Step::none();
    };
    match result {
        Ok(sessions) => {
            *state = HostState::Listed(sessions.len());
            view.take_sessions(&host, sessions);
        }
        Err(why) => {
            app.complain(format!("host {host}: {why}"));
            *state = HostState::Failed(why);
            view.take_sessions(&host, Vec::new());
        }
    }
    Step::none()
}

/// Pull was pressed: what cannot be pulled is said at once; else the
/// folder here is asked for, starting from the one it was worked in.
fn ask_folder(view: &HostsView, app: &mut App) {
    if view.pulling.is_some() {
        app.say("a pull is under way: one at a time");
        return;
    }
    let Some(session) = view.selected_session() else {
        return;
    };
    if session.archived {
        app.complain(format!(
            "its agent deleted it on {}: restore it there first, then pull it",
            session.host
        ));
        return;
    }
    if session.agent != "claude" && session.agent != "codex" {
        app.complain(format!(
            "pull takes Claude Code and Codex sessions, not {}'s (Gemini CLI files its sessions under a project id of its own registry)",
            session.agent
        ));
        return;
    }
    app.overlay = Some(Overlay::Input(Input::new(
        InputPurpose::PullTo {
            host: session.host.clone(),
            id: session.id.clone(),
        },
        session.cwd.as_deref().unwrap_or_default(),
    )));
}

/// The folder was typed: the host is asked for the session's files and
/// the store says what pulling them here would write.
pub fn on_folder_typed(
    view: &mut HostsView,
    app: &mut App,
    host: &str,
    id: &str,
    text: &str,
) -> Step {
    match typed_folder(text, "nothing pulled") {
        Ok(to) => {
            app.say(format!("asking {host} for the session's files…"));
            pull(view, app, host, id, to, None)
        }
        Err(why) => {
            app.complain(why);
            Step::none()
        }
    }
}

/// Yes to the pull previewed: written from the files already fetched.
pub fn on_pull_confirmed(
    view: &mut HostsView,
    app: &mut App,
    host: &str,
    id: &str,
    to: PathBuf,
) -> Step {
    let pack = view.pending.take();
    if pack.is_none() {
        return Step::none();
    }
    pull(view, app, host, id, to, pack)
}

/// Asks for the pull of `id` of `host` into `to`: planned without `pack`,
/// written with it.
fn pull(
    view: &mut HostsView,
    app: &mut App,
    host: &str,
    id: &str,
    to: PathBuf,
    pack: Option<Arc<Pack>>,
) -> Step {
    let Some((host, _)) = view.hosts.iter().find(|(h, _)| h.name == host) else {
        return Step::none();
    };
    let req = app.request();
    view.pulling = Some((req, host.name.clone()));
    Step::effect(Effect::Pull(PullJob {
        req,
        host: host.clone(),
        id: id.into(),
        to,
        write: pack.is_some(),
        pack,
        deadline: app.settings.host_timeout,
    }))
}

/// The pull's preview is asked about, with what it writes; a pull written
/// is said, and the list reads the store again (the session is there now).
fn on_pulled(
    view: &mut HostsView,
    app: &mut App,
    req: u64,
    write: bool,
    result: Result<(Arc<Pack>, Box<PullPlan>), String>,
) -> Step {
    let host = match view.pulling.take() {
        Some((asked, host)) if asked == req => host,
        other => {
            view.pulling = other; // an answer to an earlier request
            return Step::none();
        }
    };
    let (pack, plan) = match result {
        Ok(done) => done,
        Err(why) => {
            app.complain(format!("not pulled: {why}"));
            return Step::none();
        }
    };
    if write {
        app.say(format!(
            "pulled {} from {host} into {}; it is in the list now ({} there resumes it)",
            plan.id,
            safe_line(&plan.to_folder),
            keymap::key_for(Scope::List, Action::Resume)
        ));
        return Step::go(Go::Rescan);
    }
    let title = view
        .sessions()
        .iter()
        .find(|s| s.id == plan.id && s.host == host)
        .map_or(plan.id.clone(), |s| humanize::truncate(&s.title, 36));
    let changes = if plan.lines_changed == 0 {
        "The same folder here: every byte as it is there.".to_string()
    } else {
        format!(
            "{} with the folder here, every other byte kept.",
            humanize::plural(plan.lines_changed as u64, "line")
        )
    };
    app.status = None;
    app.overlay = Some(Overlay::Confirm(Confirm {
        title: format!("Pull from {host}: {title}?"),
        lines: vec![
            format!("{} session {}", plan.agent.display_name(), plan.id),
            format!("there  {}", safe_line(&plan.from_folder)),
            format!("here   {}", safe_line(&plan.to_folder)),
            format!("file   {}", safe_line(&plan.to_file.display().to_string())),
            changes,
            format!(
                "{}, {} written here; nothing on {host} changes.",
                humanize::plural(plan.writes.len() as u64, "file"),
                humanize::bytes(plan.bytes)
            ),
        ],
        action: ConfirmAction::Pull {
            host,
            id: plan.id.clone(),
            to: PathBuf::from(&plan.to_folder),
        },
    }));
    view.pending = Some(pack);
    Step::none()
}
