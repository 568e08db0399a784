//! The key reference in Markdown, generated from the table so the
//! documentation cannot drift from the keys: `docs/KEYS.md` is all of it,
//! and the README's list table is the list's part. A test compares both
//! with what this writes (`UPDATE_DOCS=1 cargo test keys_doc` rewrites them).

use super::{CTRL_NOTE, Scope, help_lines};

/// The scopes in the order the reference shows them.
pub const DOC_SCOPES: [Scope; 17] = [
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
    Scope::Confirm,
    Scope::Input,
    Scope::Help,
    Scope::Everywhere,
];

/// One table per scope of `scopes`, each under a bold title.
pub fn markdown(scopes: &[Scope]) -> String {
    let mut out = String::new();
    for scope in scopes {
        out.push_str(&format!("**{}**\n\n| Keys | |\n|---|---|\n", scope.title()));
        for (keys, help) in help_lines(*scope) {
            out.push_str(&format!("| {} | {} |\n", cell(&keys), cell(help)));
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
         few Ctrl keys that shells do not use for editing.\n\n{}",
        markdown(&DOC_SCOPES)
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

    /// `docs/KEYS.md` and the README's list keys say what the table says.
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
            "docs/KEYS.md is stale: run UPDATE_DOCS=1 cargo test keys_doc"
        );

        let readme_path = root.join("README.md");
        let readme = std::fs::read_to_string(&readme_path).unwrap();
        let start = readme.find(BEGIN).expect("README.md has the keys marker") + BEGIN.len();
        let end = start
            + readme[start..]
                .find(END)
                .expect("README.md has the keys end marker");
        let want = markdown(&[Scope::List, Scope::Messages]);
        if update {
            let new = format!("{}{want}{}", &readme[..start], &readme[end..]);
            std::fs::write(&readme_path, new).unwrap();
        } else {
            assert!(
                readme[start..end] == want,
                "README.md's keys are stale: run UPDATE_DOCS=1 cargo test keys_doc"
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
        assert!(text.contains("| F7 / M-n | new session |"));
    }
}
