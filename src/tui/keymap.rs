//! Every key binding, in one table: `to_msg` reads it, and the help overlay
//! and the footer are generated from it; the config's `[keys]` change it
//! (`custom`).

use crate::tui::model::{ListMode, Model, Overlay, Screen, ViewerMode};
use crate::tui::msg::{Action, Msg};
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

pub mod custom;
#[cfg(test)]
mod doc;
mod table;

pub use custom::CustomKeys;
use custom::keys_of;

/// Where a binding applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// The session list.
    List,
    /// The list searching the text of every message.
    Messages,
    /// The context viewer.
    Viewer,
    /// Adjusting a trim in the viewer.
    Trim,
    /// Marking messages to drop or tool results to clear, in the viewer.
    Edit,
    /// Where the tokens go, over the viewer.
    Breakdown,
    /// A context compared with its parent, over the list of contexts.
    Diff,
    /// The list of contexts (forks) in the viewer.
    Contexts,
    /// Reading one message full screen in the viewer.
    Message,
    /// The viewer's transcript: every message as one document.
    Transcript,
    /// Typing a search in the message read.
    Find,
    /// The purge preview.
    Purge,
    /// What a delete or a purge moved into the trash.
    Trash,
    /// The usage dashboard.
    Dashboard,
    /// Other machines' sessions.
    Hosts,
    /// A yes/no question.
    Confirm,
    /// Typing a line.
    Input,
    /// The help overlay.
    Help,
    /// Every scope (Ctrl-C).
    Everywhere,
    /// Editing a line of text: the search in the list, and text fields.
    LineEdit,
}

impl Scope {
    /// The title of this scope in the help overlay.
    pub fn title(self) -> &'static str {
        match self {
            Scope::List => "Session list",
            Scope::Messages => "Searching messages",
            Scope::Viewer => "Context viewer",
            Scope::Trim => "Trim",
            Scope::Edit => "Editing by hand: drop or clear",
            Scope::Breakdown => "Where the tokens go",
            Scope::Diff => "A context against its parent",
            Scope::Contexts => "Contexts (forks)",
            Scope::Message => "Reading a message",
            Scope::Transcript => "Transcript",
            Scope::Find => "Finding text",
            Scope::Purge => "Purge preview",
            Scope::Trash => "The trash",
            Scope::Dashboard => "Usage dashboard",
            Scope::Hosts => "Other machines",
            Scope::Confirm => "Question",
            Scope::Input => "Text field",
            Scope::Help => "Help",
            Scope::Everywhere => "Everywhere",
            Scope::LineEdit => "Editing the text",
        }
    }
}

/// One action and the keys that do it in a scope.
#[derive(Clone, Copy, Debug)]
pub struct Binding {
    /// Where it applies.
    pub scope: Scope,
    /// The keys (code and the modifiers that must be held), the main one first.
    pub keys: &'static [(KeyCode, KeyModifiers)],
    /// What they do.
    pub action: Action,
    /// What it does, in a few words, for the help.
    pub help: &'static str,
    /// The footer's word for it, with how many of `keys` it shows.
    pub footer: Option<(usize, &'static str)>,
    /// An opposite action whose key the footer shows beside this one's.
    pub partner: Option<Action>,
}

pub use table::BINDINGS;

/// What `^` means, for the help.
const CTRL_NOTE: &str = "^ means Ctrl: ^A is Ctrl-A; M- means Alt: M-n is Alt-N";

/// The scope the model is in.
pub fn scope(model: &Model) -> Scope {
    match &model.app.overlay {
        Some(Overlay::Help(_)) => return Scope::Help,
        Some(Overlay::Confirm(_)) => return Scope::Confirm,
        Some(Overlay::Input(_)) => return Scope::Input,
        None => {}
    }
    match &model.screen {
        Screen::List if model.list.mode == ListMode::Messages => Scope::Messages,
        Screen::List => Scope::List,
        Screen::Purge(_) => Scope::Purge,
        Screen::Trash(_) => Scope::Trash,
        Screen::Dashboard(_) => Scope::Dashboard,
        Screen::Hosts => Scope::Hosts,
        Screen::Viewer(viewer) => match &viewer.mode {
            ViewerMode::Trim(_) => Scope::Trim,
            ViewerMode::Edit(_) => Scope::Edit,
            ViewerMode::Breakdown => Scope::Breakdown,
            ViewerMode::Contexts(view) if view.diff.is_some() => Scope::Diff,
            ViewerMode::Contexts(_) => Scope::Contexts,
            ViewerMode::Message(view) if view.find.as_ref().is_some_and(|f| f.editing) => {
                Scope::Find
            }
            ViewerMode::Message(_) => Scope::Message,
            ViewerMode::Transcript(view) if view.editing() => Scope::Find,
            ViewerMode::Transcript(_) => Scope::Transcript,
            ViewerMode::Browse => Scope::Viewer,
        },
    }
}

impl Scope {
    /// True where a line of text is edited (the [`Scope::LineEdit`] keys work).
    pub fn edits_text(self) -> bool {
        matches!(
            self,
            Scope::List | Scope::Messages | Scope::Hosts | Scope::Input | Scope::Find
        )
    }
}

/// The binding of `key` in `scope`, the scope's own first, then the shared ones.
fn binding(scope: Scope, code: KeyCode, mods: KeyModifiers) -> Option<&'static Binding> {
    let is = |b: &&Binding| keys_of(b).contains(&(code, mods));
    let own = BINDINGS.iter().filter(|b| b.scope == scope).find(is);
    own.or_else(|| {
        BINDINGS
            .iter()
            .filter(|b| {
                b.scope == Scope::Everywhere || (b.scope == Scope::LineEdit && scope.edits_text())
            })
            .find(is)
    })
}

/// The message a key press means in the model's current scope, if any.
pub fn to_msg(model: &Model, key: KeyEvent) -> Option<Msg> {
    if key.kind != KeyEventKind::Press {
        return None;
    }
    // Nothing is shown, so nothing may be done but leave: a `^D y` typed
    // blind would otherwise delete a session.
    if model.app.cannot_draw() {
        let ctrl_c =
            key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL);
        return ctrl_c.then_some(Msg::Action(Action::Quit));
    }
    let scope = scope(model);
    let mods = key.modifiers - KeyModifiers::SHIFT;
    if let Some(b) = binding(scope, key.code, mods) {
        return Some(Msg::Action(b.action));
    }
    let typed = match key.code {
        KeyCode::Char(c) if !mods.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) => Some(c),
        _ => None,
    }?;
    match scope {
        Scope::List | Scope::Messages | Scope::Hosts | Scope::Input | Scope::Find => {
            Some(Msg::Type(typed))
        }
        Scope::Trim | Scope::Edit if typed.is_ascii_digit() => Some(Msg::Type(typed)),
        _ => None,
    }
}

/// How a key is written in the help, the footer and hints.
pub fn label(code: KeyCode, mods: KeyModifiers) -> String {
    let name = match code {
        KeyCode::Char(c) if mods.contains(KeyModifiers::CONTROL) => {
            return format!("^{}", c.to_ascii_uppercase());
        }
        KeyCode::Char(c) if mods.contains(KeyModifiers::ALT) => return format!("M-{c}"),
        KeyCode::Backspace if mods.contains(KeyModifiers::ALT) => return "M-Backspace".into(),
        _ if mods.contains(KeyModifiers::CONTROL) => {
            return format!("^{}", label(code, mods - KeyModifiers::CONTROL));
        }
        KeyCode::Char(' ') => "Space",
        KeyCode::Char(c) => return c.to_string(),
        KeyCode::F(n) => return format!("F{n}"),
        KeyCode::Enter => "Enter",
        KeyCode::Tab => "Tab",
        KeyCode::Esc => "Esc",
        KeyCode::Backspace => "Backspace",
        KeyCode::Delete => "Del",
        KeyCode::Up => "↑",
        KeyCode::Down => "↓",
        KeyCode::Left => "←",
        KeyCode::Right => "→",
        KeyCode::PageUp => "PgUp",
        KeyCode::PageDown => "PgDn",
        KeyCode::Home => "Home",
        KeyCode::End => "End",
        _ => "?",
    };
    name.to_string()
}

fn labels(keys: &[(KeyCode, KeyModifiers)], separator: &str) -> String {
    keys.iter()
        .map(|(code, mods)| label(*code, *mods))
        .collect::<Vec<_>>()
        .join(separator)
}

/// The bindings of `scope` as (keys, help) lines for the help overlay.
pub fn help_lines(scope: Scope) -> Vec<(String, &'static str)> {
    BINDINGS
        .iter()
        .filter(|b| b.scope == scope)
        .map(|b| (labels(&keys_of(b), " / "), b.help))
        .collect()
}

/// The scopes whose keys the help shows over `screen`.
pub fn help_scopes(screen: &Screen) -> &'static [Scope] {
    match screen {
        Screen::List => &[Scope::List, Scope::Messages, Scope::LineEdit],
        Screen::Viewer(_) => &[
            Scope::Viewer,
            Scope::Transcript,
            Scope::Message,
            Scope::Find,
            Scope::Trim,
            Scope::Edit,
            Scope::Breakdown,
            Scope::Contexts,
            Scope::Diff,
        ],
        Screen::Purge(_) => &[Scope::Purge, Scope::Confirm],
        Screen::Trash(_) => &[Scope::Trash],
        Screen::Dashboard(_) => &[Scope::Dashboard],
        Screen::Hosts => &[Scope::Hosts, Scope::LineEdit],
    }
}

/// The lines of the help over `screen`: a title, the keys and a blank line
/// per scope, two notes in the list (typing, row marks), then the global keys.
pub fn help_len(screen: &Screen) -> usize {
    let scopes: usize = help_scopes(screen)
        .iter()
        .map(|s| help_lines(*s).len() + 2)
        .sum();
    scopes + 2 * usize::from(matches!(screen, Screen::List)) + global_help_lines().len()
}

/// The keys that work everywhere, then what `^` means, for the help.
pub fn global_help_lines() -> Vec<(String, &'static str)> {
    let mut lines = help_lines(Scope::Everywhere);
    lines.push((String::new(), CTRL_NOTE));
    lines
}

/// The footer's (keys, word) pairs for `scope`, but those of `hidden`
/// (what cannot be done there now).
pub fn footer(scope: Scope, hidden: &[Action]) -> Vec<(String, &'static str)> {
    BINDINGS
        .iter()
        .filter(|b| b.scope == scope && !hidden.contains(&b.action))
        .filter_map(|b| {
            let (shown, word) = b.footer?;
            let all = keys_of(b);
            let mut keys = labels(&all[..shown.min(all.len())], " ");
            if let Some(partner) = b.partner {
                keys.push(' ');
                keys.push_str(&key_for(scope, partner));
            }
            Some((keys, word))
        })
        .collect()
}

/// How the main key of `action` in `scope` is written, for hints in the
/// panes and the status line ("press c to switch back").
pub fn key_for(scope: Scope, action: Action) -> String {
    keys_for(scope, action, 1, " ")
}

/// The main key of `action` in `scope` written out for a sentence read by
/// someone who may not know the `^` notation: `Ctrl-C`, not `^C`.
pub fn key_in_words(scope: Scope, action: Action) -> String {
    let key = key_for(scope, action);
    match key.strip_prefix('^') {
        Some(rest) => format!("Ctrl-{rest}"),
        None => key,
    }
}

/// The first `n` keys of `action` in `scope`, joined by `separator`.
pub fn keys_for(scope: Scope, action: Action, n: usize, separator: &str) -> String {
    BINDINGS
        .iter()
        .find(|b| b.scope == scope && b.action == action)
        .map_or_else(String::new, |b| {
            let keys = keys_of(b);
            labels(&keys[..n.min(keys.len())], separator)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCOPES: [Scope; 19] = [
        Scope::List,
        Scope::Messages,
        Scope::Viewer,
        Scope::Transcript,
        Scope::Trim,
        Scope::Edit,
        Scope::Breakdown,
        Scope::Diff,
        Scope::Contexts,
        Scope::Message,
        Scope::Find,
        Scope::Purge,
        Scope::Trash,
        Scope::Dashboard,
        Scope::Hosts,
        Scope::Confirm,
        Scope::Input,
        Scope::Help,
        Scope::LineEdit,
    ];

    #[test]
    fn a_key_means_one_thing_in_a_scope() {
        for scope in SCOPES {
            let mut seen = Vec::new();
            for b in BINDINGS.iter().filter(|b| b.scope == scope) {
                for key in b.keys {
                    assert!(!seen.contains(key), "{key:?} is bound twice in {scope:?}");
                    seen.push(*key);
                }
            }
        }
    }

    #[test]
    fn footers_fit_the_smallest_screen_and_hints_come_from_the_table() {
        for scope in SCOPES {
            let width: usize = footer(scope, &[])
                .iter()
                .map(|(keys, word)| keys.chars().count() + 1 + word.chars().count() + 2)
                .sum::<usize>()
                .saturating_sub(2); // no gap after the last item
            assert!(width <= 80, "{scope:?} footer is {width} columns");
        }
        assert_eq!(key_for(Scope::Viewer, Action::Contexts), "c");
        assert_eq!(
            keys_for(Scope::Confirm, Action::No, 3, " / "),
            "n / Enter / Esc"
        );
        assert_eq!(label(KeyCode::Char('a'), KeyModifiers::CONTROL), "^A");
        assert_eq!(label(KeyCode::Char(' '), KeyModifiers::NONE), "Space");
        let purge: Vec<String> = footer(Scope::Purge, &[])
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(purge[0], "+ -", "a pair shows both keys");
    }
}
