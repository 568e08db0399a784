//! Keys of your own: the config's `[keys]` table rebinds actions of the
//! key table. An entry is `action = "KEY"` or `action = ["KEY", "KEY"]`,
//! the action named as in `docs/KEYS.md` (`resume`, `trim_budget`), alone
//! (every screen where it is bound) or after a scope (`viewer.contexts`).
//! The keys replace the action's keys there. Entries are checked before the
//! UI starts: an unknown action or scope, a key that cannot be told apart
//! or is reserved, a printable key where text is typed, and two actions on
//! one key are errors naming the entry's line.
//!
//! The keys in force live with the UI's thread (`install`), so the help,
//! the footer and every hint read the same table the keys are looked up in.

use super::{BINDINGS, Binding, Scope};
use crate::tui::msg::Action;
use crossterm::event::{KeyCode, KeyModifiers};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// A key: its code and the modifiers held.
pub type Key = (KeyCode, KeyModifiers);

// An entry of `[keys]` as the config read it: the config owns the type
// (it knows nothing of the UI).
use crate::config::KeyEntry;

/// The keys of bindings the user changed, by scope and action.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CustomKeys {
    keys: HashMap<(Scope, Action), Vec<Key>>,
}

thread_local! {
    static ACTIVE: RefCell<Arc<CustomKeys>> = RefCell::new(Arc::new(CustomKeys::default()));
}

/// Makes `keys` the keys in force on this thread (the UI's).
pub fn install(keys: Arc<CustomKeys>) {
    ACTIVE.with(|active| *active.borrow_mut() = keys);
}

/// The keys of `binding` in force: the user's, else the table's.
pub fn keys_of(binding: &Binding) -> Vec<Key> {
    ACTIVE.with(|active| {
        active
            .borrow()
            .keys
            .get(&(binding.scope, binding.action))
            .cloned()
            .unwrap_or_else(|| binding.keys.to_vec())
    })
}

/// The name of an action in `[keys]` and in the docs: its variant in
/// snake case (`TrimBudget` is `trim_budget`, `Edit(GoToStart)` is
/// `edit_go_to_start`).
pub fn action_name(action: Action) -> String {
    snake(&format!("{action:?}"))
}

/// The name of a scope in `[keys]` (`viewer`, `line_edit`).
pub fn scope_name(scope: Scope) -> String {
    snake(&format!("{scope:?}"))
}

fn snake(debug: &str) -> String {
    let mut out = String::new();
    for c in debug.chars().filter(|c| c.is_alphanumeric()) {
        if c.is_uppercase() && !out.is_empty() {
            out.push('_');
        }
        out.extend(c.to_lowercase());
    }
    out
}

impl CustomKeys {
    /// Checks `entries` against the table and returns the keys they bind.
    /// `file` names the config in the errors.
    pub fn from_entries(entries: &[KeyEntry], file: &str) -> Result<CustomKeys, String> {
        let mut custom = CustomKeys::default();
        let mut line_of = HashMap::new();
        // Named once: an entry is looked up, not compared with every binding.
        let scopes: std::collections::HashSet<String> =
            BINDINGS.iter().map(|b| scope_name(b.scope)).collect();
        let mut by_action: HashMap<String, Vec<&Binding>> = HashMap::new();
        for b in BINDINGS {
            by_action.entry(action_name(b.action)).or_default().push(b);
        }
        for entry in entries {
            let fail =
                |why: String| format!("{file}, line {}: [keys] {}: {why}", entry.line, entry.name);
            let (scope, action) = entry
                .name
                .split_once('.')
                .map_or((None, entry.name.as_str()), |(s, a)| (Some(s), a));
            if let Some(scope) = scope
                && !scopes.contains(scope)
            {
                return Err(fail(format!(
                    "no scope is called {scope:?} (see docs/KEYS.md)"
                )));
            }
            let bindings: Vec<&Binding> = by_action
                .get(action)
                .into_iter()
                .flatten()
                .filter(|b| scope.is_none_or(|s| scope_name(b.scope) == s))
                .copied()
                .collect();
            if bindings.is_empty() {
                return Err(fail(format!(
                    "no action is called {action:?} there (see docs/KEYS.md)"
                )));
            }
            if entry.keys.is_empty() {
                return Err(fail("give at least one key".into()));
            }
            let keys = entry
                .keys
                .iter()
                .map(|k| parse_key(k).map_err(&fail))
                .collect::<Result<Vec<Key>, String>>()?;
            for b in bindings {
                for key in &keys {
                    if let Some(why) = unbindable(b.scope, *key) {
                        return Err(fail(format!("{} {why}", super::label(key.0, key.1))));
                    }
                }
                custom.keys.insert((b.scope, b.action), keys.clone());
                line_of.insert((b.scope, b.action), entry.line);
            }
        }
        custom.check_clashes(&line_of, file)?;
        Ok(custom)
    }

    /// Two actions on one key where both could be meant is an error.
    fn check_clashes(
        &self,
        line_of: &HashMap<(Scope, Action), usize>,
        file: &str,
    ) -> Result<(), String> {
        let keys = |b: &Binding| {
            self.keys
                .get(&(b.scope, b.action))
                .cloned()
                .unwrap_or_else(|| b.keys.to_vec())
        };
        for a in BINDINGS {
            let Some(line) = line_of.get(&(a.scope, a.action)) else {
                continue;
            };
            for b in BINDINGS.iter().filter(|b| shares_keys(a.scope, b.scope)) {
                if (a.scope, a.action) == (b.scope, b.action) {
                    continue;
                }
                if let Some(key) = keys(a).iter().find(|k| keys(b).contains(k)) {
                    return Err(format!(
                        "{file}, line {line}: [keys] {}.{}: {} is already {} in {} ({}.{}); bind that elsewhere too",
                        scope_name(a.scope),
                        action_name(a.action),
                        super::label(key.0, key.1),
                        b.help,
                        b.scope.title(),
                        scope_name(b.scope),
                        action_name(b.action),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// True when a key pressed in scope `a` could mean a binding of scope `b`
/// (the same scope, the keys of every scope, or line editing where text is
/// typed).
fn shares_keys(a: Scope, b: Scope) -> bool {
    let everywhere = |s: Scope| s == Scope::Everywhere;
    let edits = |s: Scope| s == Scope::LineEdit;
    a == b
        || everywhere(a)
        || everywhere(b)
        || (edits(a) && b.edits_text())
        || (edits(b) && a.edits_text())
}

/// Why `key` cannot do something in `scope`, if it cannot.
fn unbindable(scope: Scope, key: Key) -> Option<&'static str> {
    let (code, mods) = key;
    let ctrl = mods.contains(KeyModifiers::CONTROL);
    match code {
        KeyCode::Char('c' | 'z') if ctrl => Some("is kept for quitting and suspending"),
        // Terminals send these as Tab, Enter and Esc.
        KeyCode::Char('i' | 'm' | '[') if ctrl => Some("cannot be told from Tab, Enter or Esc"),
        KeyCode::Char(_) if !ctrl && !mods.contains(KeyModifiers::ALT) => {
            let types = scope.edits_text() || scope == Scope::LineEdit;
            let digit = matches!(code, KeyCode::Char(c) if c.is_ascii_digit());
            if types {
                Some("would type into the text there: use an F-key, Alt or Ctrl")
            } else if digit && matches!(scope, Scope::Trim | Scope::Edit) {
                Some("types a number there")
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Reads a key as the help writes it: `a`, `Space`, `Enter`, `Tab`, `Esc`,
/// `Backspace`, `Del`, `Up` (`↑`), `Down`, `Left`, `Right`, `PgUp`, `PgDn`,
/// `Home`, `End`, `F1`..`F12`, with `C-`, `Ctrl-` or `^` for Ctrl and
/// `M-` or `Alt-` for Alt (`C-o`, `^O`, `M-n`, `Ctrl-Home`).
pub fn parse_key(text: &str) -> Result<Key, String> {
    let mut mods = KeyModifiers::NONE;
    let mut rest = text;
    loop {
        let lower = rest.to_ascii_lowercase();
        let (prefix, m) = if lower.starts_with("ctrl-") {
            (5, KeyModifiers::CONTROL)
        } else if lower.starts_with("alt-") {
            (4, KeyModifiers::ALT)
        } else if lower.starts_with("c-") && rest.len() > 2 {
            (2, KeyModifiers::CONTROL)
        } else if lower.starts_with("m-") && rest.len() > 2 {
            (2, KeyModifiers::ALT)
        } else if rest.starts_with('^') && rest.len() > 1 {
            (1, KeyModifiers::CONTROL)
        } else {
            break;
        };
        mods |= m;
        rest = &rest[prefix..];
    }
    let code = match rest.to_ascii_lowercase().as_str() {
        "space" => KeyCode::Char(' '),
        "enter" | "return" => KeyCode::Enter,
        "tab" => KeyCode::Tab,
        "esc" | "escape" => KeyCode::Esc,
        "backspace" => KeyCode::Backspace,
        "del" | "delete" => KeyCode::Delete,
        "up" | "↑" => KeyCode::Up,
        "down" | "↓" => KeyCode::Down,
        "left" | "←" => KeyCode::Left,
        "right" | "→" => KeyCode::Right,
        "pgup" | "pageup" => KeyCode::PageUp,
        "pgdn" | "pagedown" => KeyCode::PageDown,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        f if f.starts_with('f') && f.len() > 1 && f[1..].chars().all(|c| c.is_ascii_digit()) => {
            match f[1..].parse::<u8>() {
                Ok(n @ 1..=12) => KeyCode::F(n),
                _ => return Err(format!("{text:?} is not a key (F1 to F12)")),
            }
        }
        _ => {
            let mut chars = rest.chars();
            match (chars.next(), chars.next()) {
                // Ctrl and Alt keys are read in lower case.
                (Some(c), None) if !mods.is_empty() => KeyCode::Char(c.to_ascii_lowercase()),
                (Some(c), None) => KeyCode::Char(c),
                _ => {
                    return Err(format!(
                        "{text:?} is not a key (try \"a\", \"F7\", \"C-o\", \"M-n\", \"Enter\")"
                    ));
                }
            }
        }
    };
    Ok((code, mods))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, keys: &[&str], line: usize) -> KeyEntry {
        KeyEntry {
            name: name.into(),
            keys: keys.iter().map(|k| k.to_string()).collect(),
            line,
        }
    }

    #[test]
    fn keys_read_as_the_help_writes_them() {
        assert_eq!(
            parse_key("C-o"),
            Ok((KeyCode::Char('o'), KeyModifiers::CONTROL))
        );
        assert_eq!(
            parse_key("^O"),
            Ok((KeyCode::Char('o'), KeyModifiers::CONTROL))
        );
        assert_eq!(
            parse_key("M-n"),
            Ok((KeyCode::Char('n'), KeyModifiers::ALT))
        );
        assert_eq!(
            parse_key("Ctrl-Home"),
            Ok((KeyCode::Home, KeyModifiers::CONTROL))
        );
        assert_eq!(parse_key("F7"), Ok((KeyCode::F(7), KeyModifiers::NONE)));
        assert_eq!(parse_key("K"), Ok((KeyCode::Char('K'), KeyModifiers::NONE)));
        assert_eq!(
            parse_key("Space"),
            Ok((KeyCode::Char(' '), KeyModifiers::NONE))
        );
        assert!(parse_key("F13").is_err());
        assert!(parse_key("Hyper-x").is_err());
    }

    #[test]
    fn names_follow_the_variants() {
        assert_eq!(action_name(Action::TrimBudget), "trim_budget");
        assert_eq!(
            action_name(Action::Edit(tui_input::InputRequest::GoToStart)),
            "edit_go_to_start"
        );
        assert_eq!(scope_name(Scope::LineEdit), "line_edit");
    }

    #[test]
    fn an_entry_rebinds_its_action_where_it_is_bound() {
        let custom =
            CustomKeys::from_entries(&[entry("viewer.contexts", &["C-x"], 3)], "config.toml")
                .unwrap();
        let b = BINDINGS
            .iter()
            .find(|b| b.scope == Scope::Viewer && b.action == Action::Contexts)
            .unwrap();
        install(Arc::new(custom));
        assert_eq!(
            keys_of(b),
            vec![(KeyCode::Char('x'), KeyModifiers::CONTROL)]
        );
        assert_eq!(super::super::key_for(Scope::Viewer, Action::Contexts), "^X");
        let help = super::super::help_lines(Scope::Viewer);
        assert!(help.iter().any(|(keys, _)| keys == "^X"), "{help:?}");
        let ctrl_x =
            super::super::binding(Scope::Viewer, KeyCode::Char('x'), KeyModifiers::CONTROL);
        assert_eq!(ctrl_x.map(|b| b.action), Some(Action::Contexts));
        let c = super::super::binding(Scope::Viewer, KeyCode::Char('c'), KeyModifiers::NONE);
        assert!(c.is_none(), "c no longer opens the contexts");
        install(Arc::default());
        assert_eq!(super::super::key_for(Scope::Viewer, Action::Contexts), "c");
    }

    #[test]
    fn mistakes_are_errors_naming_the_line() {
        let err =
            |entries: &[KeyEntry]| CustomKeys::from_entries(entries, "config.toml").unwrap_err();
        let e = err(&[entry("frobnicate", &["x"], 4)]);
        assert!(
            e.starts_with("config.toml, line 4: [keys] frobnicate: no action"),
            "{e}"
        );
        let e = err(&[entry("sidebar.resume", &["x"], 5)]);
        assert!(e.contains("line 5") && e.contains("no scope"), "{e}");
        let e = err(&[entry("list.resume", &["r"], 6)]);
        assert!(
            e.contains("line 6") && e.contains("would type into the text"),
            "{e}"
        );
        let e = err(&[entry("viewer.contexts", &["C-c"], 7)]);
        assert!(
            e.contains("line 7") && e.contains("kept for quitting"),
            "{e}"
        );
        let e = err(&[entry("viewer.contexts", &["e"], 8)]);
        assert!(
            e.contains("line 8") && e.contains("switch"),
            "clash with encoding: {e}"
        );
        let e = err(&[entry("list.resume", &["C-i"], 9)]);
        assert!(e.contains("cannot be told from Tab"), "{e}");
        let e = err(&[entry("viewer.contexts", &["Hyper-x"], 10)]);
        assert!(e.contains("line 10") && e.contains("is not a key"), "{e}");
    }
}
