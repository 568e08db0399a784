//! The key reference in Markdown, generated from the table so the
//! documentation cannot drift from the keys: `docs/KEYS.md` is all of it,
//! and the README's table is the ten keys that matter. A test compares both
//! with what this writes (`UPDATE_DOCS=1 cargo test --lib keys_doc`
//! rewrites them).

use super::custom::{action_name, keys_of, scope_name};
use super::{BINDINGS, CTRL_NOTE, Scope, help_lines, labels};
use crate::tui::msg::Action;

/// The scopes in the order the reference shows them.
pub const DOC_SCOPES: [Scope; 20] = [
    Scope::List,
    Scope::Messages,
    Scope::LineEdit,
    Scope::Viewer,
    Scope::Transcript,
    Scope::Message,
    Scope::Find,
    Scope::Trim,
    Scope::Edit,
    Scope::Breakdown,
    Scope::Contexts,
    Scope::Diff,
    Scope::Purge,
    Scope::Trash,
    Scope::Dashboard,
    Scope::Hosts,
    Scope::Confirm,
    Scope::Input,
    Scope::Help,
    Scope::Everywhere,
];

/// The ten keys a newcomer needs, in the order they meet them: the
/// README's table. Chosen here, spelled by the table.
const ESSENTIAL: [(Scope, Action); 10] = [
    (Scope::List, Action::Open),
    (Scope::List, Action::Resume),
    (Scope::List, Action::ToggleSearchMode),
    (Scope::Viewer, Action::ToggleTranscript),
    (Scope::Viewer, Action::Breakdown),
    (Scope::Viewer, Action::TrimBudget),
    (Scope::Viewer, Action::Mark),
    (Scope::Viewer, Action::Contexts),
    (Scope::List, Action::PurgePreview),
    (Scope::List, Action::Help),
];

/// The README's table: each of [`ESSENTIAL`] with its keys, where it works
/// and what it does, as the help says it (the help's own line reads "this
/// help", which says nothing out of it).
pub fn essentials() -> String {
    let mut out = String::from("| Keys | Where | What |\n|---|---|---|\n");
    for (scope, action) in ESSENTIAL {
        let binding = BINDINGS
            .iter()
            .find(|b| b.scope == scope && b.action == action)
            .unwrap_or_else(|| panic!("{action:?} is not bound in {scope:?}"));
        let what = match action {
            Action::Help => "the help: every key of the screen you are on",
            _ => binding.help,
        };
        out.push_str(&format!(
            "| {} | {} | {} |\n",
            cell(&labels(&keys_of(binding), " / ")),
            scope.title(),
            cell(what)
        ));
    }
    out.push('\n');
    out.push_str(CTRL_NOTE);
    out.push_str(".\n");
    out
}

/// The reference's tables: each scope's keys with the names `[keys]` uses.
fn named_tables(scopes: &[Scope]) -> String {
    let mut out = String::new();
    for scope in scopes {
        out.push_str(&format!(
            "**{}** (`{}`)\n\n| Keys | | Name in `[keys]` |\n|---|---|---|\n",
            scope.title(),
            scope_name(*scope)
        ));
        let bound = BINDINGS.iter().filter(|b| b.scope == *scope);
        for (b, (keys, help)) in bound.zip(help_lines(*scope)) {
            out.push_str(&format!(
                "| {} | {} | `{}` |\n",
                cell(&keys),
                cell(help),
                action_name(b.action)
            ));
        }
        out.push('\n');
    }
    out.push_str(CTRL_NOTE);
    out.push_str(".\n");
    out
}

/// The whole reference, `docs/KEYS.md`.
pub fn reference() -> String {
    format!(
        "# Keys\n\n\
         Every key of the terminal UI, by where it works. This file is \
         generated from the key table in `src/tui/keymap/table.rs` (the \
         help overlay, F1 or `?`, shows the same lines); a test fails when \
         they differ.\n\n\
         Printable characters in the session list and in text fields are \
         text: they are typed, never taken as commands, and a paste is \
         typed as it is. So the list's commands sit on F-keys, Alt and a \
         few Ctrl keys that shells do not use for editing.\n\n\
         Keys of your own go in the config file's `[keys]` table, each \
         action by the name in the last column, alone (wherever it is \
         bound) or after its scope's name:\n\n\
         ```toml\n[keys]\nopen = [\"Tab\", \"C-o\"]\n\
         \"viewer.contexts\" = \"C-x\"\npurge_preview = \"F9\"\n```\n\n\
         Keys are written as in the tables (`F7`, `C-o` or `^O`, `M-n`, \
         `Enter`, `Space`, `PgDn`, `Ctrl-Home`). They replace the action's \
         keys there; the help, the footer and every hint then show them. \
         The UI refuses to start on an unknown action, a key that is \
         already another action's where both could be meant, a printable \
         key where text is typed, and ^C, ^Z, ^I, ^M and ^[ (kept, or sent \
         as Tab, Enter and Esc), naming the line.\n\n{}",
        named_tables(&DOC_SCOPES)
    )
}

/// Markdown's table separator escaped.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    const BEGIN: &str = "<!-- keys: generated from src/tui/keymap/table.rs -->\n";
    const END: &str = "<!-- keys: end -->";

    /// `docs/KEYS.md` and the README's ten keys say what the table says.
    #[test]
    fn keys_doc_is_current() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let update = std::env::var_os("UPDATE_DOCS").is_some();
        let ci = std::env::var("CI").is_ok_and(|v| !matches!(v.as_str(), "" | "0" | "false"));
        assert!(
            !(ci && update),
            "UPDATE_DOCS rewrites the docs this test checks: refused under CI"
        );

        let keys_path = root.join("docs/KEYS.md");
        let want = reference();
        if update {
            std::fs::write(&keys_path, &want).unwrap();
        }
        let have = std::fs::read_to_string(&keys_path).unwrap_or_default();
        assert!(
            have == want,
            "docs/KEYS.md is stale: run UPDATE_DOCS=1 cargo test --lib keys_doc"
        );

        let readme_path = root.join("README.md");
        let readme = std::fs::read_to_string(&readme_path).unwrap();
        let start = readme.find(BEGIN).expect("README.md has the keys marker") + BEGIN.len();
        let end = start
            + readme[start..]
                .find(END)
                .expect("README.md has the keys end marker");
        let want = essentials();
        if update {
            let new = format!("{}{want}{}", &readme[..start], &readme[end..]);
            std::fs::write(&readme_path, new).unwrap();
        } else {
            assert!(
                readme[start..end] == want,
                "README.md's keys are stale: run UPDATE_DOCS=1 cargo test --lib keys_doc"
            );
        }
    }

    #[test]
    fn every_scope_is_in_the_reference() {
        let text = reference();
        for b in super::super::BINDINGS {
            assert!(
                DOC_SCOPES.contains(&b.scope),
                "{:?} is not in DOC_SCOPES",
                b.scope
            );
        }
        for scope in DOC_SCOPES {
            assert!(text.contains(scope.title()), "{scope:?}");
        }
        assert!(text.contains("| F7 / M-n | new session | `new_session` |"));
    }
}
