//! The whole state of the terminal UI. `update` changes it; `view` draws it.
//!
//! Each screen owns its state: the list (the home screen, kept for the
//! whole run so leaving another screen finds it as it was), and the viewer
//! or the purge preview while one is open ([`Screen`]). What every screen
//! shares, the chrome, is [`App`].

mod dashboard;
mod dialog;
mod diff;
mod edit;
mod external;
mod hosts;
mod list;
mod message;
mod message_hits;
mod purge;
mod resume_check;
mod size_order;
mod text_field;
mod transcript;
mod trash;
mod viewer;

pub use dialog::{
    Confirm, ConfirmAction, Input, InputPurpose, NAME_LIMIT, Overlay, PROMPT_LIMIT, typed_folder,
};
pub use diff::{DiffLine, DiffSection, DiffView, body_len, body_line};
pub use edit::{CLEAR_TURNS, ClearBy, EditKind, EditState, ResumableBy};
pub use external::External;
pub use hosts::{FILTER_LIMIT, HostState, HostsView};
pub use list::{
    Following, IndexState, LIVE_MARK, ListMode, ListScreen, Preview, QUERY_LIMIT, SessionRow,
    SortKey,
};
pub use message::{FIND_LIMIT, Find, MATCH_LIMIT, MESSAGE_LIMIT, MessageView, PartKind, Section};
pub use message_hits::{HitRow, MessageHits};
pub use purge::PurgeView;
pub use resume_check::{ResumeBlocked, ResumeCheck};
/// The smallest terminal the UI is laid out for.
pub const MIN_SIZE: (u16, u16) = (80, 24);
pub use dashboard::{DashboardView, PERIODS};
pub use size_order::SizeOrder;
pub use text_field::{Pasted, TextField};
pub use transcript::{TranscriptFind, TranscriptView};
pub use trash::{EMPTY_AGES, TrashFrom, TrashView, shown_title};
pub use viewer::{ContextsView, Loaded, Pending, TrimKind, TrimState, Viewer, ViewerMode};

use crate::render::transcript::Display;
use crate::store::{Encoding, PurgePolicy, SessionRecord, StoreKind, WatchMode, WatchOptions};
use std::collections::HashMap;

/// The size `>` and `<` jump over at first, in tokens.
pub const BIG_MESSAGE: u64 = 1_000;

/// Settings the user can change while the UI runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Encoding of token counts.
    pub encoding: Encoding,
    /// The model's context window, for the viewer's gauge.
    pub window_tokens: u64,
    /// Purge policy (editable in the purge preview).
    pub policy: PurgePolicy,
    /// Which kind of store is open (some operations need a Loki tree).
    pub store_kind: StoreKind,
    /// What the transcript shows (thinking, tools, markdown).
    pub display: Display,
    /// How the UI follows the disk (None: it does not; the list is read
    /// once and again on request).
    pub watch: Option<WatchOptions>,
    /// Context windows by agent name (`loki`, `peteos`, ...), over
    /// `window_tokens`.
    pub windows: Vec<(String, u64)>,
    /// Asked before the UI ends to resume a session.
    pub resume_check: ResumeCheck,
    /// Where sessions were looked for, every agent's folder included, for
    /// an empty list (None: the session folder the scan names).
    pub looked_in: Option<String>,
    /// Keep in the archive what the agents' own cleanups delete within this
    /// many seconds, after each listing (None: the setting is off).
    pub archive_due: Option<f64>,
    /// The config's hosts: the other machines' pane asks these.
    pub hosts: Vec<crate::hosts::Host>,
    /// How long a host has to answer.
    pub host_timeout: std::time::Duration,
    /// Open on the other machines' pane, asking these hosts (`--host`).
    pub open_hosts: Vec<crate::hosts::Host>,
}

impl Settings {
    /// The context window a session of `record`'s agent is measured against.
    pub fn window_for(&self, record: &SessionRecord) -> u64 {
        let agent = record.agent.name();
        self.windows
            .iter()
            .find(|(name, _)| name == agent)
            .map_or(self.window_tokens, |(_, w)| *w)
            .max(1)
    }
}

/// The screen showing, with the state only it uses.
#[derive(Clone, Debug)]
pub enum Screen {
    /// The session list (its state is [`Model::list`]).
    List,
    /// One session's active context.
    Viewer(Box<Viewer>),
    /// What a purge would delete.
    Purge(Box<PurgeView>),
    /// What a delete or a purge moved into the trash.
    Trash(Box<TrashView>),
    /// The usage dashboard.
    Dashboard(Box<DashboardView>),
    /// Other machines' sessions (their state is [`Model::hosts`]).
    Hosts,
}

/// A line at the bottom telling what happened.
#[derive(Clone, Debug, PartialEq)]
pub struct Status {
    /// The text.
    pub text: String,
    /// Errors are shown differently.
    pub is_error: bool,
}

/// How the UI ends.
#[derive(Clone, Debug, PartialEq)]
// A record leaves in it once per run; boxing it would buy nothing.
#[allow(clippy::large_enum_variant)]
pub enum Exit {
    /// The user cancelled: print nothing, exit 130.
    Cancel,
    /// Resume this session (already touched).
    Resume(SessionRecord),
    /// Resume the session `id` on `host`, through its own program over
    /// `ssh -t`.
    ResumeRemote {
        /// The host it is on.
        host: crate::hosts::Host,
        /// Its id there.
        id: String,
    },
    /// A signal (SIGTERM, SIGHUP, SIGINT sent by another process) ended
    /// the UI: exit with 128 + its number, as a shell would report it.
    Signal(i32),
}

/// What every screen may read or change besides its own state.
#[derive(Clone, Debug)]
pub struct App {
    /// Settings.
    pub settings: Settings,
    /// The clock (seconds since the epoch), advanced by ticks.
    pub now: f64,
    /// What just happened.
    pub status: Option<Status>,
    /// A modal over the screen; its answer goes to the screen that asked.
    pub overlay: Option<Overlay>,
    /// Terminal size (columns, rows), for paging.
    pub size: (u16, u16),
    /// The last trim number chosen for each session and kind, so reopening
    /// a session's trim starts where the person left it (while the UI runs).
    pub trims: HashMap<(String, TrimKind), u64>,
    /// The size, in tokens, that `>` and `<` in the viewer jump to
    /// messages over (set with `=`, remembered while the UI runs).
    pub big_message: u64,
    /// The tag of the newest request: every request gets a new one, so a
    /// reply is matched to the request a screen waits for and late replies
    /// to older ones (or to a screen since closed) are dropped.
    pub last_request: u64,
    /// The UI takes the mouse (wheel scrolling); off, the terminal's own
    /// selection copies text. The runtime applies a change after `update`.
    pub mouse_capture: bool,
    /// Text to put on the clipboard, tagged: the runtime writes each new
    /// one to the terminal once (OSC 52).
    pub clipboard: Option<(u64, String)>,
    /// How many times the person asked to suspend (Ctrl-Z): the runtime
    /// gives the terminal back and stops the process once per request.
    pub suspend: u64,
    /// A program to hand the terminal to, tagged: the runtime runs each
    /// new one once, then draws the screen whole again.
    pub external: Option<(u64, External)>,
    /// How the disk is followed, once the watcher has said.
    pub watch: Option<WatchMode>,
}

impl App {
    /// A new request tag.
    pub fn request(&mut self) -> u64 {
        self.last_request += 1;
        self.last_request
    }

    /// Shows `text` in the status line.
    pub fn say(&mut self, text: impl Into<String>) {
        self.status = Some(Status {
            text: text.into(),
            is_error: false,
        });
    }

    /// Shows an error in the status line.
    pub fn complain(&mut self, text: impl Into<String>) {
        self.status = Some(Status {
            text: text.into(),
            is_error: true,
        });
    }

    /// Asks the runtime to put `text` on the clipboard.
    pub fn copy(&mut self, text: String) {
        let tag = self.request();
        self.clipboard = Some((tag, text));
    }

    /// True while the terminal is smaller than the UI is laid out for: the
    /// screen says so, and no key but Ctrl-C acts on what nobody sees.
    pub fn cannot_draw(&self) -> bool {
        self.size.0 < MIN_SIZE.0 || self.size.1 < MIN_SIZE.1
    }

    /// Rows in one page of a list on the current screen.
    pub fn page(&self) -> usize {
        usize::from(self.size.1.saturating_sub(12)).max(1)
    }
}

/// A context this full of its window is warned about...
pub const FILL_WARN: f64 = 0.80;
/// ...and this full, warned about loudly.
pub const FILL_ALARM: f64 = 0.95;

/// What a side conversation read in the session's place (a subagent's
/// thread, an older fork) refuses: whatever would change the session.
pub const SIDE_READ_ONLY: [crate::tui::msg::Action; 7] = {
    use crate::tui::msg::Action;
    [
        Action::TrimKeepLast,
        Action::TrimBudget,
        Action::Mark,
        Action::MarkRange,
        Action::StartClear,
        Action::StartResumable,
        Action::Contexts,
    ]
};

/// A session its agent's own cleanup deletes within this (seconds) is
/// marked in the list (`⚑`); the preview says when.
pub const DELETES_SOON: f64 = 7.0 * 86_400.0;

/// How full the context of a session with `stats` is: as its agent's API
/// saw it where the agent records it (in the window it or its model
/// gives), else its transcript counted in `window`.
pub fn context_of(
    stats: &crate::store::SessionStats,
    window: u64,
) -> Option<crate::store::ContextFigure> {
    crate::store::ContextFigure::of(stats.tokens, stats.context.as_deref(), window)
}

/// How full a context of `tokens` is of `window`, as a warning (None below
/// [`FILL_WARN`]; true past [`FILL_ALARM`]).
pub fn fill_alarm(tokens: u64, window: u64) -> Option<bool> {
    let fill = tokens as f64 / window.max(1) as f64;
    (fill >= FILL_WARN).then_some(fill >= FILL_ALARM)
}

/// What the status line says of how the disk is followed (nothing when
/// every folder has a notification watch).
pub fn watch_note(mode: &WatchMode) -> Option<String> {
    use crate::humanize;
    match mode {
        WatchMode::Notify { .. } => None,
        WatchMode::Mixed {
            watches,
            polled,
            why,
        } => Some(format!(
            "following the disk: {} watched, {} polled ({why})",
            humanize::plural(*watches as u64, "folder"),
            humanize::count(*polled as u64)
        )),
        WatchMode::Polling { polled, why } => Some(format!(
            "following the disk by polling {}: {why}",
            humanize::plural(*polled as u64, "folder")
        )),
    }
}

/// The state of the UI.
#[derive(Clone, Debug)]
pub struct Model {
    /// The screen showing.
    pub screen: Screen,
    /// The session list: the home screen, alive the whole run.
    pub list: ListScreen,
    /// Other machines' sessions, alive the whole run once asked.
    pub hosts: HostsView,
    /// What the screens share.
    pub app: App,
    /// Set when the UI should end.
    pub exit: Option<Exit>,
}

impl Model {
    /// A fresh model before the first scan.
    pub fn new(settings: Settings, now: f64) -> Self {
        Model {
            screen: Screen::List,
            list: ListScreen::default(),
            hosts: HostsView::default(),
            app: App {
                settings,
                now,
                status: None,
                overlay: None,
                size: (80, 24),
                trims: HashMap::new(),
                big_message: BIG_MESSAGE,
                last_request: 0,
                mouse_capture: true,
                clipboard: None,
                suspend: 0,
                external: None,
                watch: None,
            },
            exit: None,
        }
    }

    /// The viewer, when it is the screen showing.
    pub fn viewer(&self) -> Option<&Viewer> {
        match &self.screen {
            Screen::Viewer(viewer) => Some(viewer),
            _ => None,
        }
    }

    /// The purge preview, when it is the screen showing.
    pub fn purge(&self) -> Option<&PurgeView> {
        match &self.screen {
            Screen::Purge(purge) => Some(purge),
            _ => None,
        }
    }

    /// The trash pane, when it is the screen showing.
    pub fn trash(&self) -> Option<&TrashView> {
        match &self.screen {
            Screen::Trash(trash) => Some(trash),
            _ => None,
        }
    }

    /// The dashboard, when it is the screen.
    pub fn dashboard(&self) -> Option<&DashboardView> {
        match &self.screen {
            Screen::Dashboard(dashboard) => Some(dashboard),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fill_is_warned_about_from_80_percent_and_loudly_from_95() {
        let window = 10_000;
        assert_eq!(fill_alarm(7_999, window), None, "79.99%");
        assert_eq!(fill_alarm(8_000, window), Some(false), "80%");
        assert_eq!(fill_alarm(9_499, window), Some(false), "94.99%");
        assert_eq!(fill_alarm(9_500, window), Some(true), "95%");
    }
}
