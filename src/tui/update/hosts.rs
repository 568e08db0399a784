//! The other machines' pane: each host of the config asked for its
//! sessions over ssh at once, each on a thread of its own; the rows fill in
//! as each answers, a slow or unreachable host said and left out. Typing
//! narrows the rows; Enter ends the UI to resume the session on its host
//! (`Exit::ResumeRemote`: the same `resume --host` the CLI runs).

use crate::hosts::Host;
use crate::tui::effect::Effect;
use crate::tui::model::{App, Exit, HostState, HostsView};
use crate::tui::msg::Action;
use crate::tui::ops::HostsReply;
use crate::tui::update::{Go, Step, move_cursor};
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
    let HostsReply::Listed { host, result } = reply;
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
