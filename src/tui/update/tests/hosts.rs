//! Transitions of the other machines' pane: asked once per host at once,
//! filled in as each answers (a stale answer dropped, a failed host said
//! and left out), narrowed by typing or a paste, Enter ending the UI to
//! resume there, Esc clearing the filter, then back to the list.

use super::*;
use crate::hosts::{Host, RemoteSession};
use crate::tui::model::{HostState, Overlay};
use crate::tui::ops::HostsReply;

fn host(name: &str) -> Host {
    Host::new(name, &format!("me@{name}"), None).unwrap()
}

fn session(host: &str, id: &str, title: &str, hours_ago: f64) -> RemoteSession {
    RemoteSession {
        host: host.into(),
        id: id.into(),
        agent: "claude".into(),
        title: title.into(),
        cwd: Some("/srv/app".into()),
        last_used_at: NOW - hours_ago * 3600.0,
        messages: Some(4),
        archived: false,
    }
}

/// The hosts asked by `effects`, with the request of each.
fn asked(effects: &[Effect]) -> Vec<(String, u64)> {
    effects
        .iter()
        .map(|e| match e {
            Effect::AskHost { req, host, .. } => (host.name.clone(), *req),
            other => panic!("{other:?}"),
        })
        .collect()
}

fn answer(m: &mut Model, req: u64, host: &str, result: Result<Vec<RemoteSession>, String>) {
    let effects = reply(
        m,
        req,
        HostsReply::Listed {
            host: host.into(),
            result,
        },
    );
    assert!(effects.is_empty(), "{effects:?}");
}

/// What the status line says.
fn said(m: &Model) -> &str {
    m.app.status.as_ref().map_or("", |s| s.text.as_str())
}

fn with_hosts() -> Model {
    let mut m = listed(false);
    m.app.settings.hosts = vec![host("dev"), host("gpu")];
    m
}

fn shown_ids(m: &Model) -> Vec<String> {
    m.hosts
        .visible
        .iter()
        .map(|&at| m.hosts.sessions()[at].id.clone())
        .collect()
}

#[test]
fn every_host_is_asked_at_once_and_its_rows_come_as_it_answers() {
    let mut m = with_hosts();
    let asked = asked(&act(&mut m, Action::Hosts));
    assert!(matches!(m.screen, Screen::Hosts));
    assert_eq!(
        asked.iter().map(|(h, _)| h.as_str()).collect::<Vec<_>>(),
        ["dev", "gpu"]
    );
    assert!(m.hosts.asking());
    // gpu first: its rows show while dev is still asked.
    answer(
        &mut m,
        asked[1].1,
        "gpu",
        Ok(vec![session("gpu", "g1", "Train", 2.0)]),
    );
    assert_eq!(shown_ids(&m), ["g1"]);
    assert!(m.hosts.asking(), "dev has not answered");
    // An answer to another request of dev's (asked before) is dropped.
    answer(
        &mut m,
        999,
        "dev",
        Ok(vec![session("dev", "x", "Old", 0.0)]),
    );
    assert_eq!(shown_ids(&m), ["g1"]);
    answer(
        &mut m,
        asked[0].1,
        "dev",
        Ok(vec![
            session("dev", "d1", "Fix the login", 1.0),
            session("dev", "d2", "Old work", 30.0),
        ]),
    );
    assert!(!m.hosts.asking());
    assert_eq!(
        shown_ids(&m),
        ["d1", "g1", "d2"],
        "newest first, hosts mixed"
    );
    assert_eq!(m.hosts.hosts[0].1, HostState::Listed(2));
    // Leaving and coming back asks nothing again; ^R does.
    act(&mut m, Action::ClearOrQuit);
    assert!(matches!(m.screen, Screen::List));
    assert!(act(&mut m, Action::Hosts).is_empty());
    assert_eq!(shown_ids(&m).len(), 3);
    assert_eq!(act(&mut m, Action::Refresh).len(), 2);
}

#[test]
fn a_host_that_fails_is_said_and_left_out_and_the_others_stay() {
    let mut m = with_hosts();
    let asked = asked(&act(&mut m, Action::Hosts));
    answer(
        &mut m,
        asked[0].1,
        "dev",
        Ok(vec![session("dev", "d1", "Fix", 1.0)]),
    );
    answer(
        &mut m,
        asked[1].1,
        "gpu",
        Err("did not answer within 20 s (left out)".into()),
    );
    assert_eq!(shown_ids(&m), ["d1"]);
    assert!(matches!(&m.hosts.hosts[1].1, HostState::Failed(why) if why.contains("20 s")));
    let status = m.app.status.as_ref().unwrap();
    assert!(
        status.is_error && status.text.starts_with("host gpu: "),
        "{status:?}"
    );
    // Asked again and failing now, dev's rows go: what it said before is
    // not what it has now.
    let again = asked_again(&mut m);
    answer(
        &mut m,
        again["dev"],
        "dev",
        Err("unreachable: no route".into()),
    );
    assert!(shown_ids(&m).is_empty());
}

#[test]
fn typing_or_a_paste_narrows_and_esc_clears_then_goes_back() {
    let mut m = with_hosts();
    let asked = asked(&act(&mut m, Action::Hosts));
    answer(
        &mut m,
        asked[0].1,
        "dev",
        Ok(vec![
            session("dev", "d1", "Fix the login", 1.0),
            session("dev", "d2", "Login page", 3.0),
            session("dev", "d3", "Docs", 4.0),
        ]),
    );
    for c in "login".chars() {
        assert!(update(&mut m, Msg::Type(c)).is_empty());
    }
    assert_eq!(shown_ids(&m), ["d1", "d2"]);
    // A paste is text: its newline is not Enter.
    update(&mut m, Msg::Paste(" page\n".into()));
    assert_eq!(shown_ids(&m), ["d2"]);
    assert!(m.exit.is_none());
    act(&mut m, Action::ClearOrQuit);
    assert!(m.hosts.filter.is_empty());
    assert_eq!(shown_ids(&m).len(), 3);
    assert!(matches!(m.screen, Screen::Hosts));
    act(&mut m, Action::ClearOrQuit);
    assert!(matches!(m.screen, Screen::List));
}

#[test]
fn enter_ends_the_ui_to_resume_there_but_not_one_its_agent_deleted() {
    let mut m = with_hosts();
    let asked = asked(&act(&mut m, Action::Hosts));
    assert!(act(&mut m, Action::Resume).is_empty());
    assert!(m.exit.is_none(), "nothing listed yet");
    let mut archived = session("gpu", "g0", "Gone", 0.5);
    archived.archived = true;
    answer(&mut m, asked[1].1, "gpu", Ok(vec![archived]));
    answer(
        &mut m,
        asked[0].1,
        "dev",
        Ok(vec![session("dev", "d1", "Fix", 1.0)]),
    );
    assert_eq!(shown_ids(&m), ["g0", "d1"]);
    act(&mut m, Action::Resume);
    assert!(m.exit.is_none());
    assert!(said(&m).contains("restore it there first"));
    act(&mut m, Action::Down);
    act(&mut m, Action::Resume);
    assert_eq!(
        m.exit,
        Some(Exit::ResumeRemote {
            host: host("dev"),
            id: "d1".into()
        })
    );
}

#[test]
fn with_no_hosts_configured_the_pane_says_how_to_add_one() {
    let mut m = listed(false);
    assert!(act(&mut m, Action::Hosts).is_empty());
    assert!(matches!(m.screen, Screen::List));
    assert!(said(&m).contains("under [hosts]"));
}

#[test]
fn host_on_the_command_line_opens_the_pane_first() {
    let mut m = listed(false);
    m.app.settings.open_hosts = vec![host("gpu")];
    let effects = init(&mut m);
    assert!(matches!(m.screen, Screen::Hosts));
    let hosts: Vec<String> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::AskHost { host, .. } => Some(host.name.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(hosts, ["gpu"]);
}

/// ^R on the pane: each host's new request, by name.
fn asked_again(m: &mut Model) -> std::collections::HashMap<String, u64> {
    asked(&act(m, Action::Refresh)).into_iter().collect()
}

/// The one pull `effects` asks for: its request, folder, and whether it
/// writes with the files fetched before.
fn pull_asked(effects: Vec<Effect>) -> (u64, PathBuf, bool) {
    let job = only!(effects, Effect::Pull(job) => job);
    assert_eq!(
        job.pack.is_some(),
        job.write,
        "a write uses the files fetched"
    );
    assert_eq!((job.host.name.as_str(), job.id.as_str()), ("dev", "d1"));
    (job.req, job.to, job.write)
}

/// The pull asked as `req` answered `result` (planned, or `write`n).
fn pulled(
    m: &mut Model,
    req: u64,
    write: bool,
    result: Result<(Arc<crate::store::Pack>, Box<crate::store::PullPlan>), String>,
) -> Vec<Effect> {
    reply(m, req, HostsReply::Pulled { write, result })
}

#[test]
fn pull_asks_the_folder_shows_what_it_writes_then_writes_on_yes() {
    use crate::store::{Agent, Pack, PullPlan};
    let mut m = with_hosts();
    let asked = asked(&act(&mut m, Action::Hosts));
    let mut gemini = session("dev", "g9", "Gemini work", 2.0);
    gemini.agent = "gemini".into();
    answer(
        &mut m,
        asked[0].1,
        "dev",
        Ok(vec![session("dev", "d1", "Fix the login", 1.0), gemini]),
    );
    // Gemini CLI's are refused at once, saying why.
    act(&mut m, Action::Down);
    assert!(act(&mut m, Action::Pull).is_empty());
    assert!(m.app.overlay.is_none());
    assert!(said(&m).contains("Claude Code and Codex"));
    // The folder is asked, starting from the one it was worked in there.
    act(&mut m, Action::Up);
    act(&mut m, Action::Pull);
    assert_eq!(keymap::scope(&m), keymap::Scope::Input);
    act(&mut m, Action::Edit(InputRequest::DeleteLine));
    update(&mut m, Msg::Paste("/home/me/api".into()));
    let (req, to, write) = pull_asked(act(&mut m, Action::Confirm));
    assert_eq!((to.as_path(), write), (Path::new("/home/me/api"), false));
    // Keys while it is fetched start no second pull.
    assert!(act(&mut m, Action::Pull).is_empty());
    let pack = Arc::new(Pack {
        agent: Agent::Claude,
        id: "d1".into(),
        cwd: "/srv/app".into(),
        files: vec![("d1.jsonl".into(), b"{}\n".to_vec())],
    });
    let plan = PullPlan {
        id: "d1".into(),
        agent: Agent::Claude,
        from_folder: "/srv/app".into(),
        to_folder: "/home/me/api".into(),
        to_file: "/home/me/.claude/projects/-home-me-api/d1.jsonl".into(),
        lines_changed: 7,
        bytes: 3,
        writes: Vec::new(),
    };
    let effects = pulled(
        &mut m,
        req,
        false,
        Ok((pack.clone(), Box::new(plan.clone()))),
    );
    assert!(effects.is_empty(), "nothing written before yes");
    let Some(Overlay::Confirm(confirm)) = &m.app.overlay else {
        panic!("{:?}", m.app.overlay)
    };
    assert_eq!(confirm.title, "Pull from dev: Fix the login?");
    let text = confirm.lines.join("\n");
    assert!(text.starts_with("Claude Code session d1"), "{text}");
    assert!(
        text.contains("there  /srv/app") && text.contains("here   /home/me/api"),
        "{text}"
    );
    assert!(
        text.contains("7 lines with the folder here") && text.contains("nothing on dev changes"),
        "{text}"
    );
    let (req, to, write) = pull_asked(act(&mut m, Action::Yes));
    assert_eq!((to.as_path(), write), (Path::new("/home/me/api"), true));
    let effects = pulled(&mut m, req, true, Ok((pack, Box::new(plan))));
    assert!(
        asks!(&effects, StoreOp::List(ListOp::Scan)),
        "the list reads the store again: {effects:?}"
    );
    assert!(said(&m).starts_with("pulled d1 from dev into /home/me/api"));
    // A refusal of the store is said, nothing asked.
    act(&mut m, Action::Pull);
    let (req, _, _) = pull_asked(act(&mut m, Action::Confirm));
    pulled(
        &mut m,
        req,
        false,
        Err("session d1 is on this machine already (…): nothing pulled".into()),
    );
    assert!(m.app.overlay.is_none());
    assert!(said(&m).contains("not pulled: session d1 is on this machine already"));
}

#[test]
fn a_pull_names_the_host_it_was_asked_of_when_two_hosts_have_the_session() {
    use crate::store::{Agent, Pack, PullPlan};
    let mut m = with_hosts();
    let asked = asked(&act(&mut m, Action::Hosts));
    answer(
        &mut m,
        asked[0].1,
        "dev",
        Ok(vec![session("dev", "d1", "On dev", 1.0)]),
    );
    answer(
        &mut m,
        asked[1].1,
        "gpu",
        Ok(vec![session("gpu", "d1", "On gpu", 2.0)]),
    );
    act(&mut m, Action::Down);
    act(&mut m, Action::Pull);
    let job = only!(act(&mut m, Action::Confirm), Effect::Pull(job) => job);
    assert_eq!(job.host.name, "gpu");
    let pack = Arc::new(Pack {
        agent: Agent::Claude,
        id: "d1".into(),
        cwd: "/srv/app".into(),
        files: Vec::new(),
    });
    let plan = PullPlan {
        id: "d1".into(),
        agent: Agent::Claude,
        from_folder: "/srv/app".into(),
        to_folder: "/srv/app".into(),
        to_file: "/x/d1.jsonl".into(),
        lines_changed: 0,
        bytes: 0,
        writes: Vec::new(),
    };
    pulled(&mut m, job.req, false, Ok((pack, Box::new(plan))));
    let Some(Overlay::Confirm(confirm)) = &m.app.overlay else {
        panic!("{:?}", m.app.overlay)
    };
    assert_eq!(confirm.title, "Pull from gpu: On gpu?");
    assert!(matches!(&confirm.action, ConfirmAction::Pull { host, .. } if host == "gpu"));
}
