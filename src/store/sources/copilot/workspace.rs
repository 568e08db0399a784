//! `workspace.yaml` beside a session's events: flat `key: value` lines
//! (`id`, `cwd`, `name` or the older `summary`, `created_at`, `updated_at`,
//! …). No public schema names its keys, so it is read leniently: a line
//! that is not `key: value` is passed over, quotes are taken off, and a
//! block (`key: |`) is its indented lines joined. Only a few keys are used;
//! nothing in it is trusted beyond being text.

use crate::store::sources::jsonl;
use std::collections::HashMap;
use std::path::Path;

/// More than any workspace file holds; a bigger one is read this far.
const MAX_BYTES: usize = 64 * 1024;

/// The keys of one `workspace.yaml`.
#[derive(Debug, Default)]
pub struct Workspace {
    values: HashMap<String, String>,
}

/// The `workspace.yaml` of the session folder `dir` (empty when it is
/// missing or unreadable: the events still say most of it).
pub fn read(dir: &Path) -> Workspace {
    let Ok((bytes, _, _)) = jsonl::head(&dir.join("workspace.yaml"), MAX_BYTES) else {
        return Workspace::default();
    };
    parse(&String::from_utf8_lossy(&bytes))
}

/// The keys of `text`.
pub fn parse(text: &str) -> Workspace {
    let mut values = HashMap::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.starts_with([' ', '\t', '#', '-']) {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        let value = if value.starts_with(['|', '>']) {
            let mut block = Vec::new();
            while let Some(next) = lines.next_if(|l| l.starts_with([' ', '\t']) || l.is_empty()) {
                block.push(next.trim());
            }
            let joiner = if value.starts_with('|') { "\n" } else { " " };
            block.join(joiner).trim().to_string()
        } else {
            unquote(value)
        };
        values.insert(key.trim().to_string(), value);
    }
    Workspace { values }
}

/// A scalar without its quotes (`'it''s'` is `it's`).
fn unquote(value: &str) -> String {
    if let Some(inner) = value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')) {
        return inner.replace("''", "'");
    }
    if let Some(inner) = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
        return serde_json::from_str::<String>(value).unwrap_or_else(|_| inner.to_string());
    }
    value.to_string()
}

impl Workspace {
    /// The value of `key`, when it has one.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.values
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty() && *v != "null" && *v != "~")
    }

    /// The session's name: the one a person gave or the agent made
    /// (`name`), else the older `summary`.
    pub fn title(&self) -> Option<String> {
        self.get("name")
            .or_else(|| self.get("summary"))
            .map(str::to_string)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_quotes_and_blocks_are_read_and_the_rest_passed_over() {
        let w = parse(
            "id: 0b5a\ncwd: '/home/ann/my app'\nname: \"Fix the \\\"login\\\" bug\"\n# a comment\n  stray: indented\nsummary: |-\n  first line\n  second line\nuser_named: false\nbranch: ~\n",
        );
        assert_eq!(w.get("cwd"), Some("/home/ann/my app"));
        assert_eq!(w.title().as_deref(), Some("Fix the \"login\" bug"));
        assert_eq!(w.get("summary"), Some("first line\nsecond line"));
        assert_eq!(w.get("stray"), None);
        assert_eq!(w.get("branch"), None, "a YAML null is no value");
        assert_eq!(
            parse("summary: 'it''s done'\n").title().as_deref(),
            Some("it's done")
        );
    }
}
