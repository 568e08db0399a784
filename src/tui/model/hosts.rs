//! The state of the other machines' pane: the sessions each host of the
//! config listed over ssh, put together newest first as they come, with
//! each host's state (asking, how many, or why it is left out). Kept for
//! the whole run, so leaving the pane and coming back asks nothing again.

use crate::hosts::{Host, RemoteSession};
use crate::tui::model::TextField;

/// The most a filter holds.
pub const FILTER_LIMIT: usize = 200;

/// The other machines' pane.
#[derive(Clone, Debug)]
pub struct HostsView {
    /// The hosts asked, in the order given, with how each answered.
    pub hosts: Vec<(Host, HostState)>,
    /// Every session listed so far, newest first.
    sessions: Vec<RemoteSession>,
    /// Each session's fields the filter reads, lowercased once.
    haystacks: Vec<String>,
    /// What is typed to narrow the rows: every word in the host, agent,
    /// title, folder or id, in any case.
    pub filter: TextField,
    /// The rows shown: indexes into `sessions`.
    pub visible: Vec<usize>,
    /// Selected row of `visible`.
    pub selected: usize,
    /// The pull (preview or write) being waited for: its request and the
    /// host asked.
    pub pulling: Option<(u64, String)>,
    /// The files of the session whose pull is asked about, kept for the
    /// write after yes.
    pub pending: Option<std::sync::Arc<crate::store::Pack>>,
}

/// How a host answered.
#[derive(Clone, Debug, PartialEq)]
pub enum HostState {
    /// Asked as request `req`; no answer yet.
    Asking {
        /// The request the answer comes as.
        req: u64,
    },
    /// It listed this many sessions.
    Listed(usize),
    /// It is left out, and why (unreachable, slow, another version, a
    /// wrong answer).
    Failed(String),
}

impl Default for HostsView {
    fn default() -> Self {
        HostsView {
            hosts: Vec::new(),
            sessions: Vec::new(),
            haystacks: Vec::new(),
            filter: TextField::new("", FILTER_LIMIT),
            visible: Vec::new(),
            selected: 0,
            pulling: None,
            pending: None,
        }
    }
}

impl HostsView {
    /// Every session listed so far, newest first.
    pub fn sessions(&self) -> &[RemoteSession] {
        &self.sessions
    }

    /// Puts `host`'s sessions in place of what it listed before, newest
    /// first among the others', and filters again.
    pub fn take_sessions(&mut self, host: &str, listed: Vec<RemoteSession>) {
        let mut all: Vec<RemoteSession> = std::mem::take(&mut self.sessions)
            .into_iter()
            .filter(|s| s.host != host)
            .chain(listed)
            .collect();
        all.sort_by(|a, b| b.last_used_at.total_cmp(&a.last_used_at));
        self.haystacks = all.iter().map(haystack).collect();
        self.sessions = all;
        self.refilter();
    }

    /// The session under the cursor.
    pub fn selected_session(&self) -> Option<&RemoteSession> {
        self.sessions.get(*self.visible.get(self.selected)?)
    }

    /// True while a host has not answered.
    pub fn asking(&self) -> bool {
        self.hosts
            .iter()
            .any(|(_, state)| matches!(state, HostState::Asking { .. }))
    }

    /// The rows the filter lets through, the cursor kept on its session
    /// where it still shows.
    pub fn refilter(&mut self) {
        let kept = self
            .selected_session()
            .map(|s| (s.host.clone(), s.id.clone()));
        let words: Vec<String> = self
            .filter
            .value()
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        self.visible = self
            .haystacks
            .iter()
            .enumerate()
            .filter(|(_, hay)| words.iter().all(|w| hay.contains(w.as_str())))
            .map(|(at, _)| at)
            .collect();
        self.selected = kept
            .and_then(|(host, id)| {
                self.visible.iter().position(|&at| {
                    let s = &self.sessions[at];
                    s.host == host && s.id == id
                })
            })
            .unwrap_or(0);
    }
}

/// The session's host, agent, title, folder and id, lowercased, apart
/// (a word typed never spans two of them).
fn haystack(session: &RemoteSession) -> String {
    [
        session.host.as_str(),
        &session.agent,
        &session.title,
        session.cwd.as_deref().unwrap_or_default(),
        &session.id,
    ]
    .map(str::to_lowercase)
    .join("\u{0}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(host: &str, id: &str, title: &str) -> RemoteSession {
        RemoteSession {
            host: host.into(),
            id: id.into(),
            agent: "claude".into(),
            title: title.into(),
            cwd: Some("/srv/api".into()),
            last_used_at: 0.0,
            messages: None,
            archived: false,
        }
    }

    #[test]
    fn every_word_narrows_and_the_cursor_stays_on_its_session() {
        let mut view = HostsView::default();
        view.take_sessions("dev", vec![session("dev", "a1", "Fix the login")]);
        view.take_sessions(
            "gpu",
            vec![
                session("gpu", "b2", "Train the model"),
                session("gpu", "c3", "Login page colours"),
            ],
        );
        assert_eq!(view.visible, [0, 1, 2]);
        view.selected = 2;
        view.filter = TextField::new("LOGIN gpu", FILTER_LIMIT);
        view.refilter();
        assert_eq!(view.visible, [2]);
        assert_eq!(view.selected_session().map(|s| s.id.as_str()), Some("c3"));
        view.filter = TextField::new("api dev", FILTER_LIMIT);
        view.refilter();
        assert_eq!(view.visible, [0]);
        assert_eq!(view.selected, 0);
        // A host answering again replaces its rows, never doubles them.
        view.filter = TextField::new("", FILTER_LIMIT);
        view.take_sessions("dev", vec![session("dev", "a1", "Fix the login")]);
        assert_eq!(view.sessions().len(), 3);
    }
}
