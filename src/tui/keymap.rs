//! Every key binding, in one table: `to_msg` reads it, and the help overlay
//! and the footer are generated from it.

use crate::tui::model::{Model, Overlay, Screen, ViewerMode};
use crate::tui::msg::{Action, Msg};
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// Where a binding applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The session list.
    List,
    /// The context viewer.
    Viewer,
    /// Adjusting a trim in the viewer.
    Trim,
    /// The list of contexts (forks) in the viewer.
    Contexts,
    /// The purge preview.
    Purge,
    /// A yes/no question.
    Confirm,
    /// Typing a line.
    Input,
    /// The help overlay.
    Help,
}

impl Scope {
    /// The title of this scope in the help overlay.
    pub fn title(self) -> &'static str {
        match self {
            Scope::List => "Session list",
            Scope::Viewer => "Context viewer",
            Scope::Trim => "Trim",
            Scope::Contexts => "Contexts (forks)",
            Scope::Purge => "Purge preview",
            Scope::Confirm => "Question",
            Scope::Input => "Text field",
            Scope::Help => "Help",
        }
    }
}

/// One key and what it does in a scope.
#[derive(Clone, Copy, Debug)]
pub struct Binding {
    /// Where it applies.
    pub scope: Scope,
    /// The key.
    pub code: KeyCode,
    /// Modifiers that must be held.
    pub mods: KeyModifiers,
    /// What it does.
    pub action: Action,
    /// How the key is written in help and footer.
    pub label: &'static str,
    /// What it does, in a few words.
    pub help: &'static str,
    /// Shown in the footer.
    pub footer: bool,
}

const NONE: KeyModifiers = KeyModifiers::NONE;
const CTRL: KeyModifiers = KeyModifiers::CONTROL;

const fn bind(
    scope: Scope,
    code: KeyCode,
    mods: KeyModifiers,
    action: Action,
    label: &'static str,
    help: &'static str,
    footer: bool,
) -> Binding {
    Binding {
        scope,
        code,
        mods,
        action,
        label,
        help,
        footer,
    }
}

use Action as A;
use KeyCode as K;
use Scope as S;

/// Every binding. Printable characters in the list go to the query unless
/// listed here (only `?`), so actions there sit on keys that never collide
/// with typing.
#[rustfmt::skip]
pub const BINDINGS: &[Binding] = &[
    bind(S::List, K::Enter, NONE, A::Resume, "Enter", "resume: print the workspace and exit", true),
    bind(S::List, K::Tab, NONE, A::Open, "Tab", "open: read messages and tokens, trim", true),
    bind(S::List, K::Right, NONE, A::Open, "→", "open", false),
    bind(S::List, K::Char('o'), CTRL, A::Open, "^O", "open", false),
    bind(S::List, K::Up, NONE, A::Up, "↑", "move up", false),
    bind(S::List, K::Char('p'), CTRL, A::Up, "^P", "move up", false),
    bind(S::List, K::Down, NONE, A::Down, "↓", "move down", false),
    bind(S::List, K::Char('n'), CTRL, A::Down, "^N", "move down", false),
    bind(S::List, K::PageUp, NONE, A::PageUp, "PgUp", "page up", false),
    bind(S::List, K::PageDown, NONE, A::PageDown, "PgDn", "page down", false),
    bind(S::List, K::Home, NONE, A::Home, "Home", "first session", false),
    bind(S::List, K::End, NONE, A::End, "End", "last session", false),
    bind(S::List, K::Backspace, NONE, A::Backspace, "Backspace", "erase a character of the query", false),
    bind(S::List, K::Char('u'), CTRL, A::ClearQuery, "^U", "erase the query", false),
    bind(S::List, K::Char('a'), CTRL, A::NewSession, "^A", "new session", true),
    bind(S::List, K::F(7), NONE, A::NewSession, "F7", "new session", false),
    bind(S::List, K::F(2), NONE, A::Rename, "F2", "rename", false),
    bind(S::List, K::Char('e'), CTRL, A::Rename, "^E", "rename", false),
    bind(S::List, K::Delete, NONE, A::Delete, "Del", "delete (asks first)", true),
    bind(S::List, K::Char('d'), CTRL, A::Delete, "^D", "delete (asks first)", false),
    bind(S::List, K::Char('g'), CTRL, A::PurgePreview, "^G", "purge preview", true),
    bind(S::List, K::F(9), NONE, A::PurgePreview, "F9", "purge preview", false),
    bind(S::List, K::Char('r'), CTRL, A::Refresh, "^R", "refresh", false),
    bind(S::List, K::F(5), NONE, A::Refresh, "F5", "refresh", false),
    bind(S::List, K::Char('t'), CTRL, A::ToggleEncoding, "^T", "switch encoding", false),
    bind(S::List, K::Esc, NONE, A::ClearOrQuit, "Esc", "clear the query, then quit", true),
    bind(S::Viewer, K::Up, NONE, A::Up, "↑ k", "previous message", false),
    bind(S::Viewer, K::Char('k'), NONE, A::Up, "k", "previous message", false),
    bind(S::Viewer, K::Down, NONE, A::Down, "↓ j", "next message", false),
    bind(S::Viewer, K::Char('j'), NONE, A::Down, "j", "next message", false),
    bind(S::Viewer, K::PageUp, NONE, A::PageUp, "PgUp", "page up", false),
    bind(S::Viewer, K::PageDown, NONE, A::PageDown, "PgDn", "page down", false),
    bind(S::Viewer, K::Home, NONE, A::Home, "Home g", "first message", false),
    bind(S::Viewer, K::Char('g'), NONE, A::Home, "g", "first message", false),
    bind(S::Viewer, K::End, NONE, A::End, "End G", "last message", false),
    bind(S::Viewer, K::Char('G'), NONE, A::End, "G", "last message", false),
    bind(S::Viewer, K::Char(']'), NONE, A::DetailDown, "]", "scroll the message text down", false),
    bind(S::Viewer, K::Char('['), NONE, A::DetailUp, "[", "scroll the message text up", false),
    bind(S::Viewer, K::Char('t'), NONE, A::TrimKeepLast, "t", "trim: keep the last N messages", true),
    bind(S::Viewer, K::Char('b'), NONE, A::TrimBudget, "b", "trim: fit a token budget", true),
    bind(S::Viewer, K::Char('e'), NONE, A::ToggleEncoding, "e", "switch encoding", true),
    bind(S::Viewer, K::Char('c'), NONE, A::Contexts, "c", "contexts: switch back (undo a trim)", true),
    bind(S::Viewer, K::Enter, NONE, A::Resume, "Enter", "resume this session", false),
    bind(S::Viewer, K::Esc, NONE, A::Back, "Esc q", "back to the list", true),
    bind(S::Viewer, K::Char('q'), NONE, A::Back, "q", "back to the list", false),
    bind(S::Viewer, K::Left, NONE, A::Back, "←", "back to the list", false),
    bind(S::Trim, K::Up, NONE, A::More, "↑ +", "keep more", true),
    bind(S::Trim, K::Char('+'), NONE, A::More, "+", "keep more", false),
    bind(S::Trim, K::Right, NONE, A::More, "→", "keep more", false),
    bind(S::Trim, K::Down, NONE, A::Less, "↓ -", "keep less", true),
    bind(S::Trim, K::Char('-'), NONE, A::Less, "-", "keep less", false),
    bind(S::Trim, K::Left, NONE, A::Less, "←", "keep less", false),
    bind(S::Trim, K::Backspace, NONE, A::Backspace, "Backspace", "erase a digit", false),
    bind(S::Trim, K::Char('t'), NONE, A::TrimKeepLast, "t", "measure in messages", true),
    bind(S::Trim, K::Char('b'), NONE, A::TrimBudget, "b", "measure in tokens", true),
    bind(S::Trim, K::PageUp, NONE, A::PageUp, "PgUp", "scroll messages", false),
    bind(S::Trim, K::PageDown, NONE, A::PageDown, "PgDn", "scroll messages", false),
    bind(S::Trim, K::Enter, NONE, A::Confirm, "Enter", "fork and make it active", true),
    bind(S::Trim, K::Esc, NONE, A::Back, "Esc", "cancel: change nothing", true),
    bind(S::Contexts, K::Up, NONE, A::Up, "↑", "previous context", false),
    bind(S::Contexts, K::Down, NONE, A::Down, "↓", "next context", false),
    bind(S::Contexts, K::Enter, NONE, A::Confirm, "Enter", "make it the active context", true),
    bind(S::Contexts, K::Esc, NONE, A::Back, "Esc", "close", true),
    bind(S::Purge, K::Up, NONE, A::Up, "↑", "move up", false),
    bind(S::Purge, K::Down, NONE, A::Down, "↓", "move down", false),
    bind(S::Purge, K::PageUp, NONE, A::PageUp, "PgUp", "page up", false),
    bind(S::Purge, K::PageDown, NONE, A::PageDown, "PgDn", "page down", false),
    bind(S::Purge, K::Home, NONE, A::Home, "Home", "first row", false),
    bind(S::Purge, K::End, NONE, A::End, "End", "last row", false),
    bind(S::Purge, K::Char('+'), NONE, A::KeepMore, "+ -", "keep more / fewer sessions", true),
    bind(S::Purge, K::Char('-'), NONE, A::KeepLess, "-", "keep fewer sessions", false),
    bind(S::Purge, K::Char(']'), NONE, A::AgeMore, "] [", "raise / lower the maximum age", true),
    bind(S::Purge, K::Char('['), NONE, A::AgeLess, "[", "lower the maximum age", false),
    bind(S::Purge, K::Char('k'), NONE, A::ToggleKept, "k", "show every kept session", false),
    bind(S::Purge, K::Char('y'), NONE, A::Confirm, "y", "purge (asks first)", true),
    bind(S::Purge, K::Esc, NONE, A::Back, "Esc q", "back to the list", true),
    bind(S::Purge, K::Char('q'), NONE, A::Back, "q", "back to the list", false),
    bind(S::Confirm, K::Char('y'), NONE, A::Yes, "y", "yes", true),
    bind(S::Confirm, K::Char('Y'), NONE, A::Yes, "Y", "yes", false),
    bind(S::Confirm, K::Char('n'), NONE, A::No, "n Enter Esc", "no (the default)", true),
    bind(S::Confirm, K::Char('N'), NONE, A::No, "N", "no", false),
    bind(S::Confirm, K::Enter, NONE, A::No, "Enter", "no", false),
    bind(S::Confirm, K::Esc, NONE, A::No, "Esc", "no", false),
    bind(S::Input, K::Enter, NONE, A::Confirm, "Enter", "done", true),
    bind(S::Input, K::Esc, NONE, A::Back, "Esc", "cancel", true),
    bind(S::Input, K::Backspace, NONE, A::Backspace, "Backspace", "erase a character", false),
    bind(S::Help, K::Esc, NONE, A::Back, "Esc ? q", "close the help", true),
    bind(S::Help, K::Char('?'), NONE, A::Back, "?", "close the help", false),
    bind(S::Help, K::Char('q'), NONE, A::Back, "q", "close the help", false),
    bind(S::Help, K::Enter, NONE, A::Back, "Enter", "close the help", false),
];

/// Keys that work everywhere (listed in the help under every scope).
pub const GLOBAL: &[(&str, &str)] = &[
    ("^C", "quit at once"),
    ("? / F1", "this help"),
    ("", "^ means Ctrl: ^A is Ctrl-A"),
];

/// The scope the model is in.
pub fn scope(model: &Model) -> Scope {
    match &model.app.overlay {
        Some(Overlay::Help) => return Scope::Help,
        Some(Overlay::Confirm(_)) => return Scope::Confirm,
        Some(Overlay::Input(_)) => return Scope::Input,
        None => {}
    }
    match &model.screen {
        Screen::List => Scope::List,
        Screen::Purge(_) => Scope::Purge,
        Screen::Viewer(viewer) => match viewer.mode {
            ViewerMode::Trim(_) => Scope::Trim,
            ViewerMode::Contexts(_) => Scope::Contexts,
            ViewerMode::Browse => Scope::Viewer,
        },
    }
}

/// The message a key press means in the model's current scope, if any.
pub fn to_msg(model: &Model, key: KeyEvent) -> Option<Msg> {
    if key.kind != KeyEventKind::Press {
        return None;
    }
    if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
        return Some(Msg::Action(Action::Quit));
    }
    let scope = scope(model);
    let opens_help = matches!(
        scope,
        Scope::List | Scope::Viewer | Scope::Purge | Scope::Trim
    );
    if opens_help && (key.code == KeyCode::F(1) || key.code == KeyCode::Char('?')) {
        return Some(Msg::Action(Action::Help));
    }
    let mods = key.modifiers - KeyModifiers::SHIFT;
    let bound = BINDINGS
        .iter()
        .find(|b| b.scope == scope && b.code == key.code && b.mods == mods);
    if let Some(binding) = bound {
        return Some(Msg::Action(binding.action));
    }
    let typed = match key.code {
        KeyCode::Char(c) if !mods.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) => Some(c),
        _ => None,
    }?;
    match scope {
        Scope::List | Scope::Input => Some(Msg::Type(typed)),
        Scope::Trim if typed.is_ascii_digit() => Some(Msg::Type(typed)),
        _ => None,
    }
}

/// Bindings of `scope` merged by action, as (keys, help) lines.
pub fn help_lines(scope: Scope) -> Vec<(String, &'static str)> {
    let mut lines: Vec<(String, &'static str, Action)> = Vec::new();
    for b in BINDINGS.iter().filter(|b| b.scope == scope) {
        match lines.iter_mut().find(|(_, _, a)| *a == b.action) {
            Some(line) if !line.0.contains(b.label) => {
                line.0.push_str(" / ");
                line.0.push_str(b.label);
            }
            Some(_) => {}
            None => lines.push((b.label.to_string(), b.help, b.action)),
        }
    }
    lines
        .into_iter()
        .map(|(keys, help, _)| (keys, help))
        .collect()
}

/// The footer's (key, what) pairs for `scope`.
pub fn footer(scope: Scope) -> Vec<(&'static str, &'static str)> {
    BINDINGS
        .iter()
        .filter(|b| b.scope == scope && b.footer)
        .map(|b| (b.label, footer_text(scope, b.action)))
        .collect()
}

/// A word or two for the footer, where the help text would not fit.
fn footer_text(scope: Scope, action: Action) -> &'static str {
    match (scope, action) {
        (_, Action::Resume) => "resume",
        (_, Action::Open) => "open",
        (_, Action::NewSession) => "new",
        (_, Action::Rename) => "rename",
        (_, Action::Delete) => "delete",
        (_, Action::PurgePreview) => "purge",
        (_, Action::ClearOrQuit) => "clear/quit",
        (Scope::Trim, Action::TrimKeepLast) => "by messages",
        (Scope::Trim, Action::TrimBudget) => "by tokens",
        (_, Action::TrimKeepLast) => "keep last N",
        (_, Action::TrimBudget) => "token budget",
        (_, Action::ToggleEncoding) => "encoding",
        (_, Action::Contexts) => "contexts (undo)",
        (Scope::Help, Action::Back) => "close",
        (Scope::Input, Action::Back) => "cancel",
        (Scope::Trim, Action::Back) => "cancel",
        (_, Action::Back) => "back",
        (_, Action::More) => "more",
        (_, Action::Less) => "less",
        (Scope::Trim, Action::Confirm) => "apply",
        (Scope::Contexts, Action::Confirm) => "make active",
        (Scope::Purge, Action::Confirm) => "purge…",
        (_, Action::Confirm) => "done",
        (_, Action::Yes) => "yes",
        (_, Action::No) => "no",
        (_, Action::KeepMore) => "keep",
        (_, Action::AgeMore) => "max age",
        _ => "",
    }
}

/// How the first key bound to `action` in `scope` is written, for hints in
/// the panes and the status line ("press c to switch back").
pub fn key_for(scope: Scope, action: Action) -> &'static str {
    BINDINGS
        .iter()
        .find(|b| b.scope == scope && b.action == action)
        .map_or("?", |b| b.label)
}
