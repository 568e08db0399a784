//! The rooms of docs/ARCHITECTURE.md, checked on the source: a change that
//! lets one room reach into another fails here, with the file and line.

use std::fs;
use std::path::{Path, PathBuf};

fn sources(dir: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join(dir)];
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            for entry in fs::read_dir(&path).unwrap() {
                stack.push(entry.unwrap().path());
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// Lines of `path` (outside its `#[cfg(test)]` tail) that contain any of `needles`.
fn offending_lines(path: &Path, needles: &[&str]) -> Vec<String> {
    let text = fs::read_to_string(path).unwrap();
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    code.lines()
        .enumerate()
        .filter(|(_, line)| needles.iter().any(|n| line.contains(n)))
        .map(|(i, line)| format!("{}:{}: {}", path.display(), i + 1, line.trim()))
        .collect()
}

#[test]
fn the_ui_and_the_cli_use_only_the_stores_door() {
    // The store's layers are its own business: callers import what its root
    // re-exports (the `Store` door and the types it hands out).
    let inner = [
        "store::format::",
        "store::fs::",
        "store::ops::",
        "store::sources::",
        "store::parallel",
        "store::error",
        "store::index::",
        "store::clock",
        "store::api",
    ];
    let mut bad = Vec::new();
    for dir in ["src/tui", "src/cli"] {
        for path in sources(dir) {
            bad.extend(offending_lines(&path, &inner));
        }
    }
    for file in ["src/tui.rs", "src/cli.rs", "src/main.rs"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        bad.extend(offending_lines(&path, &inner));
    }
    assert!(
        bad.is_empty(),
        "reaching past the store's door:\n{}",
        bad.join("\n")
    );
}

/// The screens: every module of `src/tui/update/` (a file or a folder),
/// the tests aside.
fn screens() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tui/update");
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter_map(|p| Some(p.file_stem()?.to_str()?.to_string()))
        .filter(|name| name != "tests")
        .collect();
    names.sort();
    names.dedup();
    names
}

/// True when `line` names `module` whole (not a longer name it starts).
fn names_module(line: &str, module: &str) -> bool {
    line.match_indices(module).any(|(at, _)| {
        !line[at + module.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

#[test]
fn no_screen_update_uses_another_screen() {
    // Only the router (src/tui/update.rs) moves between screens; a screen's
    // module changes its own state and returns a Step.
    let screens = screens();
    assert!(
        [
            "dashboard",
            "dialogs",
            "hosts",
            "list",
            "purge",
            "trash",
            "viewer"
        ]
        .iter()
        .all(|s| screens.iter().any(|found| found == s)),
        "{screens:?}"
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tui/update");
    let mut bad = Vec::new();
    for path in sources("src/tui/update") {
        let rel = path.strip_prefix(&root).unwrap();
        if rel.starts_with("tests") {
            continue;
        }
        let own = rel
            .components()
            .next()
            .and_then(|c| Path::new(c.as_os_str()).file_stem())
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        let text = fs::read_to_string(&path).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (n, line) in code.lines().enumerate() {
            let other = screens.iter().filter(|s| **s != own).find(|s| {
                names_module(line, &format!("update::{s}"))
                    || names_module(line, &format!("super::{s}"))
            });
            if let Some(other) = other {
                bad.push(format!(
                    "{}:{}: {own} uses {other}: {}",
                    path.display(),
                    n + 1,
                    line.trim()
                ));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "a screen reaching into another:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_store_never_reaches_up() {
    // The store is a library: it knows nothing of the UI, the CLI or the demo.
    let mut bad = Vec::new();
    for path in sources("src/store") {
        bad.extend(offending_lines(
            &path,
            &["crate::tui", "crate::cli", "crate::demo", "crate::config"],
        ));
    }
    assert!(
        bad.is_empty(),
        "the store depends on a caller:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_transcript_and_the_config_never_reach_into_the_ui() {
    // `show`, `export` and the config reach the transcript without the UI;
    // the config knows nothing of it either (the keymap reads the config).
    let mut bad = Vec::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = sources("src/render");
    files.extend(["src/render.rs", "src/config.rs", "src/priority.rs"].map(|f| root.join(f)));
    for path in files {
        bad.extend(offending_lines(&path, &["crate::tui", "super::tui"]));
    }
    assert!(bad.is_empty(), "reaching into the UI:\n{}", bad.join("\n"));
}

/// The store's layers, each using only the ones before it.
const LAYERS: [&str; 5] = ["fs", "format", "sources", "ops", "index"];

#[test]
fn the_stores_layers_use_only_the_layers_below_them() {
    // fs < format < sources < ops < index: each may use what comes before
    // it in this list, never what comes after.
    let mut bad = Vec::new();
    for (at, layer) in LAYERS.iter().enumerate() {
        let above: Vec<String> = LAYERS[at + 1..]
            .iter()
            .map(|l| format!("crate::store::{l}"))
            .collect();
        let above: Vec<&str> = above.iter().map(String::as_str).collect();
        let mut files = sources(&format!("src/store/{layer}"));
        files.push(Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("src/store/{layer}.rs")));
        for path in files {
            bad.extend(offending_lines(&path, &above));
        }
    }
    assert!(
        bad.is_empty(),
        "a layer of the store reaching up:\n{}",
        bad.join("\n")
    );
}

/// The string literals of `path`'s code (outside its `#[cfg(test)]` tail
/// and its comments), with their line numbers.
fn string_literals(path: &Path) -> Vec<(usize, String)> {
    let text = fs::read_to_string(path).unwrap();
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    let mut out = Vec::new();
    for (i, line) in code.lines().enumerate() {
        let mut chars = line.chars().peekable();
        let mut literal: Option<String> = None;
        while let Some(c) = chars.next() {
            match (&mut literal, c) {
                (None, '/') if chars.peek() == Some(&'/') => break,
                (None, '\'') => {
                    // A char literal ('"' among them), or a lifetime.
                    let rest: String = chars.clone().take(3).collect();
                    if rest.starts_with("\\") || rest.chars().nth(1) == Some('\'') {
                        chars.nth(if rest.starts_with("\\") { 2 } else { 1 });
                    }
                }
                (None, '"') => literal = Some(String::new()),
                (Some(text), '\\') => {
                    if let Some(next) = chars.next() {
                        text.push('\\');
                        text.push(next);
                    }
                }
                (Some(_), '"') => out.push((i + 1, literal.take().unwrap_or_default())),
                (Some(text), c) => text.push(c),
                (None, _) => {}
            }
        }
    }
    out
}

/// True when `text` names a key: a key's name (`Enter`, `Esc`, `^C`,
/// `Ctrl-C`, `F5`), "press" before anything but a `{}` hole, or one
/// character that starts something ("/ starts a search").
fn names_a_key(text: &str) -> bool {
    const NAMES: [&str; 8] = [
        "Enter",
        "Esc",
        "Tab",
        "Space",
        "PgUp",
        "PgDn",
        "Backspace",
        "Del",
    ];
    const VERBS: [&str; 6] = ["starts", "opens", "closes", "toggles", "switches", "undoes"];
    let words: Vec<&str> = text
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| matches!(c, ',' | '.' | ';' | ':' | '(' | ')')))
        .collect();
    words.iter().enumerate().any(|(i, w)| {
        let next = words.get(i + 1).copied().unwrap_or("");
        NAMES.contains(w)
            || w.starts_with("Ctrl-")
            || (w.len() == 2 && w.starts_with('^') && w.as_bytes()[1].is_ascii_uppercase())
            || (w.len() >= 2 && w.starts_with('F') && w[1..].parse::<u8>().is_ok())
            || (*w == "press" && !next.is_empty() && !next.starts_with('{'))
            || (w.chars().count() == 1
                && !w.chars().all(char::is_alphanumeric)
                && VERBS.contains(&next))
    })
}

#[test]
fn every_key_hint_comes_from_the_keymap() {
    // The footer, the help and every hint in the panes and the status line
    // are written from keymap/table.rs (keymap::key_for), so a binding
    // changed there changes every sentence that names it.
    let mut bad = Vec::new();
    for path in sources("src/tui") {
        let in_keymap = path.components().any(|c| c.as_os_str() == "keymap")
            || path.ends_with("src/tui/keymap.rs");
        let a_test = path.components().any(|c| c.as_os_str() == "tests")
            || path.file_name().is_some_and(|n| n == "tests.rs");
        if in_keymap || a_test {
            continue;
        }
        for (line, text) in string_literals(&path) {
            if names_a_key(&text) {
                bad.push(format!("{}:{line}: {text:?}", path.display()));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "a key written by hand instead of keymap::key_for:\n{}",
        bad.join("\n")
    );
}

#[test]
fn only_the_clock_reads_the_time() {
    // store/clock.rs reads the wall clock; everything else is given `now`
    // (seconds since the epoch), so tests and the UI's ticks decide what
    // "now" is. Timers for how long something took (Instant) are not the time.
    let clock = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/store/clock.rs");
    let mut bad = Vec::new();
    for path in sources("src") {
        if path != clock {
            bad.extend(offending_lines(
                &path,
                &["SystemTime::now", "UNIX_EPOCH.elapsed"],
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "reading the time outside store/clock.rs:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_stores_doc_names_its_layers() {
    // src/store.rs opens with the list of the store's layers: it must name
    // the same layers, in the same order, as the check above keeps.
    let text =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/store.rs")).unwrap();
    let named: Vec<String> = text
        .lines()
        .take_while(|l| l.starts_with("//!"))
        .filter_map(|l| l.strip_prefix("//! - ")?.split(':').next())
        .map(|name| {
            name.trim_matches(|c| c == '`' || c == '[' || c == ']')
                .to_string()
        })
        .collect();
    assert_eq!(
        named, LAYERS,
        "src/store.rs's doc lists these layers; the store has {LAYERS:?}"
    );
    let count = ["One", "Two", "Three", "Four", "Five", "Six", "Seven"][LAYERS.len() - 1];
    assert!(
        text.contains(&format!("{count} layers")),
        "src/store.rs should say \"{count} layers\""
    );
}

/// The agents' seam: what differs between agents is asked of each agent's
/// provider, so no code outside the registry (`sources/agent.rs`) and the
/// agent's own folder (`sources/<name>.rs`, `sources/<name>/`) names an
/// agent (the natives' backends name theirs once, as `AGENT`).
#[test]
fn no_code_outside_the_registry_and_its_folder_decides_by_agent() {
    use loki_sessions::store::Agent;
    let own_folder = |path: &Path| {
        let rel = path.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap();
        let rel = rel.to_string_lossy();
        rel == "src/store/sources/agent.rs"
            || Agent::EXTERNAL.iter().any(|a| {
                rel == format!("src/store/sources/{}.rs", a.name())
                    || rel.starts_with(&format!("src/store/sources/{}/", a.name()))
            })
    };
    let variants: Vec<String> = Agent::ALL
        .iter()
        .map(|a| format!("Agent::{:?}", a))
        .collect();
    let needles: Vec<&str> = variants.iter().map(String::as_str).collect();
    let offending: Vec<String> = sources("src")
        .into_iter()
        .filter(|p| !own_folder(p))
        // Tests name agents to make their sessions.
        .filter(|p| !p.components().any(|c| c.as_os_str() == "tests"))
        .filter(|p| p.file_stem().is_none_or(|s| s != "tests"))
        .flat_map(|p| offending_lines(&p, &needles))
        .filter(|line| !line.contains("pub const AGENT: Agent = Agent::"))
        .collect();
    assert!(
        offending.is_empty(),
        "{} lines decide by agent outside the registry and the agents' folders:\n{}",
        offending.len(),
        offending.join("\n")
    );
}

/// The operations (`src/store/ops/NAME.rs` and its folder) that `code` names.
fn operations_named(code: &str, operations: &[String], own_super: bool) -> Vec<String> {
    let code: String = code
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut prefixes = vec!["crate::store::ops::"];
    if own_super {
        prefixes.push("super::");
    }
    let mut named = Vec::new();
    for prefix in prefixes {
        for (at, _) in code.match_indices(prefix) {
            let rest = &code[at + prefix.len()..];
            let items: Vec<&str> = match rest.strip_prefix('{') {
                Some(inner) => inner[..inner.find('}').unwrap_or(0)].split(',').collect(),
                None => vec![rest],
            };
            for item in items {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if operations.contains(&name) {
                    named.push(name);
                }
            }
        }
    }
    named
}

#[test]
fn no_two_operations_use_each_other() {
    // One operation may build on another, never the two on each other: a
    // cycle is one idea split across two files (as the four change paths
    // were, before one change pipeline).
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/store/ops");
    let operations: Vec<String> = fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| {
            let path = e.unwrap().path();
            let stem = path.file_stem()?.to_str()?.to_string();
            (path.extension().is_some_and(|x| x == "rs")).then_some(stem)
        })
        .collect();
    let mut uses: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> =
        Default::default();
    for op in &operations {
        let mut files = vec![(root.join(format!("{op}.rs")), true)];
        files.extend(
            sources(&format!("src/store/ops/{op}"))
                .into_iter()
                .map(|p| (p, false)),
        );
        for (path, top) in files {
            if path.file_stem().is_some_and(|s| s == "tests") {
                continue;
            }
            let text = fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            for named in operations_named(code, &operations, top) {
                if &named != op {
                    uses.entry(op.clone()).or_default().insert(named);
                }
            }
        }
    }
    let mut cycles = Vec::new();
    for (op, used) in &uses {
        for other in used {
            // A path back from `other` to `op`.
            let mut seen = std::collections::BTreeSet::new();
            let mut stack = vec![vec![other.clone()]];
            while let Some(path) = stack.pop() {
                let last = path.last().unwrap();
                if last == op {
                    cycles.push(format!("{op} -> {}", path.join(" -> ")));
                    break;
                }
                if !seen.insert(last.clone()) {
                    continue;
                }
                for next in uses.get(last).into_iter().flatten() {
                    let mut longer = path.clone();
                    longer.push(next.clone());
                    stack.push(longer);
                }
            }
        }
    }
    assert!(
        uses.values().map(|u| u.len()).sum::<usize>() > 10,
        "the imports were not read: {uses:?}"
    );
    assert!(
        cycles.is_empty(),
        "operations that use each other:\n{}",
        cycles.join("\n")
    );
}
